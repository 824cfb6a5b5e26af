import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AskUserQuestion, Runtime, RuntimeUi } from "@attractor/runtime";
import { describe, expect, it } from "vitest";
import { runtimeFixture } from "./support/runtime-fixture.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const FILESYSTEM = join(
  dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
  "dist",
  "index.js",
);
const servers = { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } };

/** A UI that allows every tool and answers questions from a list, recording them. */
function answeringUi(answers: string[]): RuntimeUi & { questions: AskUserQuestion[] } {
  const questions: AskUserQuestion[] = [];
  return {
    questions,
    askPermission: async () => "allow_once",
    askUser: async (q) => {
      questions.push(q);
      return answers.shift() ?? "";
    },
  };
}

/** Waits until the everything server lists a tool it adds after initialize. */
async function listed(runtime: Runtime, tool: string): Promise<void> {
  await runtime.mcp?.ready();
  for (let i = 0; i < 400; i++) {
    if (runtime.mcp?.servers()[0]?.tools.some((t) => t.serverToolName === tool)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never listed ${tool}`);
}

describe("MCP servers asking the client (sampling, elicitation, roots)", () => {
  const fixture = runtimeFixture();

  it("headless: sampling is refused unless mcpSampling allows it; then the run's model answers it", async () => {
    const { runtime } = await fixture.start({
      headless: true,
      allowedTools: ["mcp__everything"],
      mcp: { servers, startupWaitMs: 30_000 },
    });
    await listed(runtime, "trigger-sampling-request");
    fixture.model.script([
      { calls: [{ name: "mcp__everything__trigger-sampling-request", args: { prompt: "a haiku" } }] },
      { text: "ok" },
    ]);
    await runtime.submit("sample");
    expect(fixture.model.seen()).toHaveLength(2);
    expect(fixture.model.seen()[1]?.toolResults.at(-1)).toContain("nobody can approve it in a headless run");

    const allowed = await fixture.start({
      headless: true,
      allowedTools: ["mcp__everything"],
      mcp: { servers, startupWaitMs: 30_000, sampling: "allow" },
    });
    await listed(allowed.runtime, "trigger-sampling-request");
    fixture.model.script([
      { calls: [{ name: "mcp__everything__trigger-sampling-request", args: { prompt: "a haiku" } }] },
      // The server's own request to the model, made while the tool runs.
      { text: "words from the model" },
      { text: "done" },
    ]);
    const before = fixture.model.seen().length;
    await allowed.runtime.submit("sample");
    const seen = fixture.model.seen().slice(before);
    expect(seen).toHaveLength(3);
    expect(seen[1]?.userTexts.join(" ")).toContain("a haiku");
    expect(seen[1]?.tools).toEqual([]);
    expect(seen[2]?.toolResults.at(-1)).toContain("words from the model");
  }, 90_000);

  it("interactive: the user approves sampling and fills in an elicitation form; roots are the project", async () => {
    const ui = answeringUi([
      // sampling
      "Allow",
      // elicitation: answer, then the fields in order (name, check, firstLine, email, …)
      "Answer",
      "Ada",
      "maybe",
      "yes",
    ]);
    const { runtime } = await fixture.start({ ui, mcp: { servers, startupWaitMs: 30_000 } });
    await listed(runtime, "trigger-elicitation-request");
    fixture.model.script([
      { calls: [{ name: "mcp__everything__trigger-sampling-request", args: { prompt: "a limerick" } }] },
      { text: "sampled limerick" },
      { calls: [{ name: "mcp__everything__get-roots-list", args: {} }] },
      { calls: [{ name: "mcp__everything__trigger-elicitation-request", args: {} }] },
      { text: "done" },
    ]);
    // Fields after the first three are left empty or take what is asked below.
    const rest = ui.questions;
    const answersFor = (q: AskUserQuestion): string => {
      if (q.question.startsWith("String with default")) return "";
      if (q.question.startsWith("String with email")) return "ada@example.org";
      if (q.question.startsWith("String with uri")) return "";
      if (q.question.startsWith("String with date")) return "";
      if (q.question.startsWith("Integer")) return "7";
      if (q.question.startsWith("Number")) return "";
      if (q.options?.length) return q.options[0] as string;
      return "";
    };
    const ask = ui.askUser;
    ui.askUser = async (q) => {
      const scripted = await ask(q);
      return scripted !== "" ? scripted : answersFor(q);
    };
    await runtime.submit("go");
    const seen = fixture.model.seen();
    expect(rest[0]?.question).toContain('MCP server "everything" asks to use your model');
    expect(rest[0]?.question).toContain("a limerick");
    expect(seen[2]?.toolResults.at(-1)).toContain("sampled limerick");
    expect(seen[3]?.toolResults.at(-1)).toContain(pathToFileURL(fixture.project).href);
    const form = seen[4]?.toolResults.at(-1) ?? "";
    expect(form).toContain("Ada");
    expect(form).toContain("ada@example.org");
    // "maybe" is no boolean: the question came again with the reason.
    expect(rest.some((q) => q.question.includes("Please answer with yes or no"))).toBe(true);
  }, 90_000);

  it("headless: elicitation is declined", async () => {
    const { runtime } = await fixture.start({
      headless: true,
      allowedTools: ["mcp__everything"],
      mcp: { servers, startupWaitMs: 30_000 },
    });
    await listed(runtime, "trigger-elicitation-request");
    fixture.model.script([
      { calls: [{ name: "mcp__everything__trigger-elicitation-request", args: {} }] },
      { text: "ok" },
    ]);
    await runtime.submit("ask me");
    expect(fixture.model.seen().at(-1)?.toolResults.at(-1)?.toLowerCase()).toContain("decline");
  }, 60_000);

  it("--sandbox: stdio servers run in the sandbox, with the project writable as for commands", async (context) => {
    // The project's .attractor folder is read-only to sandboxed commands; the server may write
    // anywhere in the project as far as it knows, so only the sandbox can refuse it.
    await mkdir(join(fixture.project, ".attractor"), { recursive: true });
    const { runtime, events } = await fixture.start({
      headless: true,
      sandbox: "workspace-write",
      allowedTools: ["mcp__fs"],
      mcp: {
        servers: { fs: { command: process.execPath, args: [FILESYSTEM, fixture.project] } },
        startupWaitMs: 30_000,
      },
    });
    if (events.some((e) => "message" in e && /sandbox cannot run/.test(String(e.message)))) context.skip();
    fixture.model.script([
      {
        calls: [
          { name: "mcp__fs__write_file", args: { path: join(fixture.project, "in.txt"), content: "inside" } },
          {
            name: "mcp__fs__write_file",
            args: { path: join(fixture.project, ".attractor", "planted.json"), content: "{}" },
          },
        ],
      },
      { text: "ok" },
    ]);
    await runtime.submit("write both");
    expect(await readFile(join(fixture.project, "in.txt"), "utf8")).toBe("inside");
    expect(existsSync(join(fixture.project, ".attractor", "planted.json"))).toBe(false);
    expect(fixture.model.seen().at(-1)?.toolResults.at(-1)).toMatch(/read-only file system|EROFS|EACCES/i);
  }, 60_000);
});
