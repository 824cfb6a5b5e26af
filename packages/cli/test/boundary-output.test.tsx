import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { visibleControls, visibleControlsDeep } from "../src/terminal/visible-controls.js";
import {
  buggyProject,
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  type Step,
  startScriptedModel,
} from "../src/testing/index.js";
import { App } from "../src/tui/app.js";
import { createInteractiveUi } from "../src/tui/bridge.js";
import { InputHistory } from "../src/tui/input/history.js";
import { permissionPreview } from "../src/tui/permission-preview.js";
import { createFakeRuntime, sessionEvent } from "./tui-support.js";

const OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07";
const CLEAR = "\x1b[2J\x1b[H";
const HOSTILE = `before${OSC52}${CLEAR}\rspoofed\x9b31m after`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the test
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** The environment's secrets, one of each family the shared list must cover. */
const SECRETS: Record<string, string> = {
  AWS_SECRET_ACCESS_KEY: "aws-secret-value-0001",
  STRIPE_SECRET_KEY: "stripe-secret-value-0002",
  DATABASE_URL: "postgres://app:db-password-0003@db.internal/app",
  PGPASSWORD: "pg-password-value-0004",
  API_KEY: "bare-api-key-value-0005",
  SECRET: "bare-secret-value-0006",
  GITHUB_TOKEN: "github-token-value-0007",
};
const leaked = (text: string) =>
  Object.values(SECRETS).filter((v) => text.includes(v) || text.includes("db-password-0003"));

describe("control sequences made visible", () => {
  it("keeps text, newlines and tabs; shows ESC, CR, C1 and bidi overrides; drops colour", () => {
    expect(visibleControls(HOSTILE)).toBe("before␛]52;c;cm0gLXJmIH4=␇␛[2J␛[H␍spoofed<U+009B>31m after");
    expect(visibleControls("a\tb\r\nc \x1b[1;32mgreen\x1b[0m \u202Eevil")).toBe("a\tb\nc green <U+202E>evil");
    expect(visibleControlsDeep({ a: [HOSTILE], n: 3 })).toEqual({ a: [visibleControls(HOSTILE)], n: 3 });
  });
});

describe("headless command line", () => {
  let model: ScriptedModel;
  let project: string;
  let root: string;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    requireBuiltCli();
    model = await startScriptedModel("anthropic");
  });
  afterAll(async () => {
    await model.close();
  });
  beforeEach(async () => {
    ({ root, project, remove } = await buggyProject());
    return remove;
  });
  const run = (steps: Step[], args: string[]) => {
    model.script(steps);
    return runCliProcess(["-p", "go", ...args], {
      cwd: project,
      env: cleanEnv(root, { ...model.env(), ...SECRETS }),
    });
  };

  it("text mode: the answer, tool arguments and a failed command's output reach the terminal inert", async () => {
    const result = await run(
      [
        {
          calls: [
            {
              name: "shell",
              args: {
                command: "printf 'before\\033]52;c;cm0gLXJmIH4=\\007\\033[2J\\rspoofed'; exit 3",
              },
            },
          ],
        },
        { calls: [{ name: "read_file", args: { file_path: `missing${OSC52}.txt` } }] },
        { text: `All done. ${HOSTILE}` },
      ],
      ["--mode", "yolo"],
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("All done. before␛]52;c;");
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain("␛]52");
    expect(result.stderr).not.toMatch(RAW_CONTROL);
  });

  it("the environment's secrets do not reach the model, stream-json output or the transcript", async () => {
    const result = await run(
      [
        { calls: [{ name: "shell", args: { command: 'env; echo "$AWS_SECRET_ACCESS_KEY$DATABASE_URL"' } }] },
        // A model that learnt a secret some other way repeats it: the output redacts it anyway.
        {
          text: `The key is ${SECRETS.STRIPE_SECRET_KEY} and ${SECRETS.DATABASE_URL}; clone https://deploy:hunter2-0008@git.example/r.git`,
        },
      ],
      ["--mode", "yolo", "--output-format", "stream-json"],
    );
    expect(result.code, result.stderr).toBe(0);
    expect(leaked(JSON.stringify(model.seen().at(-1)?.toolResults))).toEqual([]);
    expect(leaked(result.stdout)).toEqual([]);
    expect(leaked(result.stderr)).toEqual([]);
    expect(result.stdout).toContain("[REDACTED]");
    const sessions = join(root, "attractor", "sessions");
    const [dir] = await readdir(sessions);
    const [file] = await readdir(join(sessions, dir as string));
    const transcript = await readFile(join(sessions, dir as string, file as string), "utf8");
    expect(leaked(transcript)).toEqual([]);
    // A password in any URL is cut out, whether or not the environment holds it.
    expect(transcript).toContain("https://deploy:[REDACTED]@git.example/r.git");
    expect(result.stdout).toContain("https://deploy:[REDACTED]@git.example/r.git");
    expect(transcript).not.toContain("hunter2-0008");
  });
});

describe("the interactive UI", () => {
  it("a permission prompt's diff shows a file's control sequences visibly and still matches the edit", async () => {
    const { project, remove } = await buggyProject();
    try {
      await writeFile(join(project, "evil.txt"), `title${CLEAR}\nline two\n`);
      const ui = createInteractiveUi();
      void ui.askPermission({
        call: {
          callId: "c",
          toolName: "edit_file",
          arguments: { file_path: "evil.txt", old_string: `title${CLEAR}`, new_string: "title" },
        },
        kind: "edit",
        reason: `edit${OSC52}`,
        paths: ["evil.txt"],
        canAllowAlways: true,
        alwaysRules: [],
      });
      const current = ui.current();
      if (current?.kind !== "permission") throw new Error("expected a permission prompt");
      expect(current.request.reason).toBe("edit␛]52;c;cm0gLXJmIH4=␇");
      const preview = permissionPreview(current.request, project);
      expect(preview.kind).toBe("diff");
      const diff = preview.kind === "diff" ? preview.diff : "";
      expect(diff).not.toMatch(RAW_CONTROL);
      expect(diff).toContain("-title␛[2J␛[H");
      expect(diff).toContain("line two");
      ui.cancelAll();
    } finally {
      await remove();
    }
  });

  it("shows model text, tool arguments, failed output and prompts with their control sequences visible", async () => {
    const fx = await createFakeRuntime();
    const ui = createInteractiveUi();
    const app = render(<App runtime={fx.runtime} ui={ui} onExit={() => {}} history={new InputHistory()} />);
    try {
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      fx.runtime.emit(sessionEvent("user_input", { content: "go", followUp: false }));
      fx.runtime.emit(sessionEvent("assistant_text_start", { model: "m" }));
      fx.runtime.emit(sessionEvent("assistant_text_delta", { delta: `answer ${HOSTILE}`, channel: "text" }));
      fx.runtime.emit(
        sessionEvent("tool_call_start", {
          toolName: "shell",
          callId: "c1",
          arguments: { command: `echo ${OSC52}` },
        }),
      );
      fx.runtime.emit(
        sessionEvent("tool_call_end", {
          toolName: "shell",
          callId: "c1",
          output: `boom ${CLEAR}\nExit code: 1`,
          isError: true,
          truncated: false,
          durationMs: 1,
        }),
      );
      fx.runtime.emit(
        sessionEvent("assistant_text_end", {
          text: `answer ${HOSTILE}`,
          toolCalls: [],
          finishReason: "stop",
          usage,
        }),
      );
      await vi.waitFor(() => expect(app.lastFrame()).toContain("spoofed"));
      void ui.askUser({ question: `Pick ${CLEAR}one`, options: [`a${OSC52}`] });
      await vi.waitFor(() => expect(app.lastFrame()).toContain("Pick"));
      const frames = app.frames.join("\n");
      expect(frames).not.toContain("\x1b]52");
      expect(frames).not.toContain("\x1b[2J");
      expect(frames).not.toContain("\x07");
      expect(frames).toContain("␛]52");
      expect(frames).toContain("␛[2J");
    } finally {
      ui.cancelAll();
      app.unmount();
      await fx.cleanup();
    }
  });
});
