import { link, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutionEnvironment, parsePatch, patchPaths, scopeEnvironment } from "@attractor/agent";
import { createPermissionPolicy, type PermissionMode } from "@attractor/runtime/permissions";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  type SeenRequest,
  type Step,
  startScriptedModel,
} from "../src/testing/index.js";

const MODES: readonly PermissionMode[] = ["plan", "normal", "auto-edit", "yolo"];
const SECRET = "hardlinked-secret-4b1e0d";

let dir: string;
let root: string;
let outside: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-boundary-"));
  root = join(dir, "project");
  outside = join(dir, "outside");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "src", "a.ts"), "a\n");
  await writeFile(join(outside, "victim.txt"), "keep me\n");
  await writeFile(join(outside, "secret.txt"), `${SECRET}\n`);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const call = (toolName: string, args: Record<string, unknown>, workingDirectory?: string) => ({
  callId: `c${n++}`,
  toolName,
  arguments: args,
  ...(workingDirectory !== undefined && { workingDirectory }),
});
/** evaluate() is asynchronous: a shell line is judged by a parser loaded on first use. */
const verdicts = async (c: ReturnType<typeof call>) =>
  Object.fromEntries(
    await Promise.all(
      MODES.map(async (mode) => [
        mode,
        (await createPermissionPolicy({ mode, projectRoot: root }).evaluate(c)).behavior,
      ]),
    ),
  );
/** What an edit outside the project gets: plan refuses, normal and auto-edit ask, yolo runs it. */
const OUTSIDE_EDIT = { plan: "deny", normal: "ask", "auto-edit": "ask", yolo: "allow" };
/** What a read outside the project gets: every mode but yolo asks (headless: refused). */
const OUTSIDE_READ = { plan: "ask", normal: "ask", "auto-edit": "ask", yolo: "allow" };

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;
/** Header spellings the patch parser accepts; each must be judged on the path the tool writes. */
const HEADER_VARIANTS: readonly [string, (path: string) => string][] = [
  ["canonical", (p) => wrap(`*** Add File: ${p}\n+x`)],
  ["leading space", (p) => wrap(` *** Add File: ${p}\n+x`)],
  ["leading tab", (p) => wrap(`\t*** Add File: ${p}\n+x`)],
  ["no space after the colon", (p) => wrap(`*** Add File:${p}\n+x`)],
  ["tab after the colon", (p) => wrap(`*** Add File:\t${p}\n+x`)],
  ["several spaces after the colon", (p) => wrap(`*** Add File:    ${p}\n+x`)],
  ["trailing spaces", (p) => wrap(`*** Add File: ${p}   \n+x`)],
  ["CRLF line ends", (p) => wrap(`*** Add File: ${p}\n+x`).replace(/\n/g, "\r\n")],
  ["heredoc wrapper", (p) => `apply_patch <<'EOF'\n${wrap(`  *** Add File:${p}\n+x`)}\nEOF\n`],
];

describe("apply_patch: the check reads the patch with the tool's own parser", () => {
  for (const [name, make] of HEADER_VARIANTS) {
    it(`${name}: an Add File outside the project is judged outside in every mode`, async () => {
      const patch = make("../outside/planted.txt");
      // The tool's parser really accepts this spelling and writes there.
      expect(patchPaths(parsePatch(patch))).toEqual(["../outside/planted.txt"]);
      expect(await verdicts(call("apply_patch", { patch }))).toEqual(OUTSIDE_EDIT);
    });
  }

  it("Delete, Update and Move to outside the project are judged outside, whatever their spacing", async () => {
    for (const body of [
      " *** Delete File:../outside/victim.txt",
      "*** Delete File:\t../outside/victim.txt",
      "*** Update File: src/a.ts\n *** Move to:../outside/moved.ts\n@@\n-a\n+b",
      "\t*** Update File:../outside/victim.txt\n@@\n-keep me\n+gone",
    ])
      expect(await verdicts(call("apply_patch", { patch: wrap(body) })), body).toEqual(OUTSIDE_EDIT);
  });

  it("a patch inside the project stays allowed in auto-edit; sensitive targets still ask", async () => {
    const inside = wrap("*** Update File:src/a.ts\n@@\n-a\n+b");
    expect(await verdicts(call("apply_patch", { patch: inside }))).toEqual({
      plan: "deny",
      normal: "ask",
      "auto-edit": "allow",
      yolo: "allow",
    });
    const settings = wrap(' *** Add File:.attractor/settings.json\n+{"mode":"yolo"}');
    expect((await verdicts(call("apply_patch", { patch: settings })))["auto-edit"]).toBe("ask");
  });
});

describe("symlinks and hard links", () => {
  it("a dangling symlink pointing outside is judged by its target, as the writer follows it", async () => {
    await symlink(join(outside, "new.txt"), join(root, "dangling"));
    await symlink("../../outside/missing-dir/deep.txt", join(root, "src", "relative-dangling"));
    await symlink(join(outside, "missing-dir"), join(root, "dangling-dir"));
    for (const path of ["dangling", "src/relative-dangling", "dangling-dir/x.txt"])
      expect(await verdicts(call("write_file", { file_path: path, content: "x" })), path).toEqual(
        OUTSIDE_EDIT,
      );
  });

  it("a dangling symlink pointing inside the project stays inside", async () => {
    await symlink("src/not-yet.ts", join(root, "soon"));
    expect((await verdicts(call("write_file", { file_path: "soon", content: "x" })))["auto-edit"]).toBe(
      "allow",
    );
  });

  it("a symlink loop is refused, not guessed", async () => {
    await symlink(join(root, "loop-b"), join(root, "loop-a"));
    await symlink(join(root, "loop-a"), join(root, "loop-b"));
    const policy = createPermissionPolicy({ mode: "yolo", projectRoot: root, headless: true });
    const c = call("write_file", { file_path: "loop-a", content: "x" });
    expect(await policy.evaluate(c)).toMatchObject({
      behavior: "deny",
      message: expect.stringMatching(/symbolic links/),
    });
    expect(await policy.beforeToolCall(c)).toMatchObject({ action: "deny" });
  });

  it("a file hard-linked to one outside is treated as outside for reads and writes", async () => {
    await link(join(outside, "secret.txt"), join(root, "innocent.txt"));
    expect(await verdicts(call("read_file", { file_path: "innocent.txt" }))).toEqual(OUTSIDE_READ);
    expect(await verdicts(call("write_file", { file_path: "innocent.txt", content: "x" }))).toEqual(
      OUTSIDE_EDIT,
    );
    const request = await createPermissionPolicy({ mode: "normal", projectRoot: root }).evaluate(
      call("read_file", { file_path: "innocent.txt" }),
    );
    expect(request.behavior === "ask" && request.request.reason).toMatch(/2 hard links/);
  });
});

describe("glob patterns that climb out", () => {
  it("`../` in a pattern is judged by where it reaches, in plan mode too", async () => {
    for (const pattern of [
      "../*",
      "../outside/**",
      "src/../../outside/*",
      "**/../../*",
      "{..,src}/*",
      "/etc/*",
    ])
      expect(await verdicts(call("glob", { pattern })), pattern).toEqual(OUTSIDE_READ);
    for (const pattern of ["**/*.ts", "src/**", "src/../src/*.ts"])
      expect((await verdicts(call("glob", { pattern })))["plan"], pattern).toBe("allow");
    // read_many_files takes glob patterns among its paths.
    for (const pattern of ["../outside/*", "{..,src}/*", "src/*/../../../outside/*.txt"])
      expect(await verdicts(call("read_many_files", { paths: ["src/a.ts", pattern] })), pattern).toEqual(
        OUTSIDE_READ,
      );
    expect((await verdicts(call("read_many_files", { paths: ["src/**/*.ts"] })))["plan"]).toBe("allow");
  });
});

describe("subagents in a directory reached through a symlink", () => {
  beforeEach(async () => {
    await symlink(outside, join(root, "escape"));
    await mkdir(join(root, "pkg"));
  });

  it("spawn_agent with such a working_dir is judged outside", async () => {
    // Plan mode offers no subagents at all; elsewhere the directory's real path decides.
    expect(await verdicts(call("spawn_agent", { task: "t", working_dir: "escape" }))).toEqual({
      ...OUTSIDE_READ,
      plan: "deny",
    });
    expect((await verdicts(call("spawn_agent", { task: "t", working_dir: "pkg" })))["normal"]).toBe("allow");
  });

  it("the child's calls resolve against its real directory, not the parent's", async () => {
    const inEscape = join(root, "escape");
    expect(await verdicts(call("read_file", { file_path: "secret.txt" }, inEscape))).toEqual(OUTSIDE_READ);
    expect(await verdicts(call("write_file", { file_path: "x", content: "x" }, inEscape))).toEqual(
      OUTSIDE_EDIT,
    );
    expect((await verdicts(call("shell", { command: "ls" }, inEscape)))["normal"]).toBe("ask");
    // A child in a real subdirectory: relative paths resolve there.
    expect(
      await verdicts(call("read_file", { file_path: "../escape/secret.txt" }, join(root, "pkg"))),
    ).toEqual(OUTSIDE_READ);
    expect(
      (await verdicts(call("read_file", { file_path: "../src/a.ts" }, join(root, "pkg"))))["normal"],
    ).toBe("allow");
  });

  it("the library refuses to scope a child to a directory that is a symlink out", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: root });
    expect(() => scopeEnvironment(env, "escape")).toThrow(/must be inside/);
    expect(() => scopeEnvironment(env, "../outside")).toThrow(/must be inside/);
    expect(scopeEnvironment(env, "pkg").workingDirectory()).toBe(join(root, "pkg"));
  });
});

describe("headless command line: the rows tried end to end", () => {
  let model: ScriptedModel;
  // apply_patch is the OpenAI profile's editing tool.
  let patcher: ScriptedModel;
  beforeAll(async () => {
    requireBuiltCli();
    model = await startScriptedModel("anthropic");
    patcher = await startScriptedModel("openai");
  });
  afterAll(async () => {
    await model.close();
    await patcher.close();
  });

  const run = (steps: Step[], mode: PermissionMode, via: ScriptedModel = model) => {
    via.script(steps);
    return runCliProcess(["-p", "do it", "--mode", mode, "--provider", via.provider], {
      cwd: root,
      env: cleanEnv(dir, via.env()),
    });
  };
  const results = () => model.seen().at(-1)?.toolResults ?? [];

  it("auto-edit: apply_patch header variants neither plant, move nor delete files outside", async () => {
    const calls = HEADER_VARIANTS.map(([, make], i) => ({
      name: "apply_patch",
      args: { patch: make(`../outside/planted-${i}.txt`) },
    }));
    calls.push(
      { name: "apply_patch", args: { patch: wrap(" *** Delete File:../outside/victim.txt") } },
      {
        name: "apply_patch",
        args: { patch: wrap("*** Update File: src/a.ts\n *** Move to:\t../outside/moved.ts\n@@\n-a\n+b") },
      },
    );
    const result = await run([{ calls }, { text: "done" }], "auto-edit", patcher);
    expect(result.code, result.stderr).toBe(0);
    for (let i = 0; i < HEADER_VARIANTS.length; i++)
      await expect(stat(join(outside, `planted-${i}.txt`))).rejects.toThrow();
    expect(await readFile(join(outside, "victim.txt"), "utf8")).toBe("keep me\n");
    await expect(stat(join(outside, "moved.ts"))).rejects.toThrow();
    expect(await readFile(join(root, "src", "a.ts"), "utf8")).toBe("a\n");
    const seen = patcher.seen().at(-1)?.toolResults ?? [];
    expect(seen).toHaveLength(calls.length);
    expect(seen.filter((r) => !/Permission denied/.test(r))).toEqual([]);
  });

  it("auto-edit: a write through a dangling symlink does not leave the project", async () => {
    await symlink(join(outside, "planted.txt"), join(root, "notes.txt"));
    const result = await run(
      [{ calls: [{ name: "write_file", args: { file_path: "notes.txt", content: "x" } }] }, { text: "done" }],
      "auto-edit",
    );
    expect(result.code, result.stderr).toBe(0);
    await expect(stat(join(outside, "planted.txt"))).rejects.toThrow();
    expect(results()[0]).toMatch(/Permission denied/);
  });

  it("normal and plan: a hard-linked secret and a climbing glob do not reach the model", async () => {
    await link(join(outside, "secret.txt"), join(root, "innocent.txt"));
    for (const mode of ["normal", "plan"] as const) {
      const result = await run(
        [
          {
            calls: [
              { name: "read_file", args: { file_path: "innocent.txt" } },
              { name: "glob", args: { pattern: "../outside/*" } },
            ],
          },
          { text: "done" },
        ],
        mode,
      );
      expect(result.code, result.stderr).toBe(0);
      const seen = JSON.stringify(model.seen().at(-1));
      expect(seen, mode).not.toContain(SECRET);
      expect(seen, mode).not.toContain("victim.txt");
      expect(results(), mode).toHaveLength(2);
    }
  });

  it("normal: a subagent cannot leave through a symlinked working_dir or a symlink beside it", async () => {
    await mkdir(join(root, "pkg"));
    await symlink(outside, join(root, "pkg", "link"));
    await symlink(outside, join(root, "escape"));
    const task = "CHILD TASK: read link/secret.txt and report it";
    const route = (r: SeenRequest): Step => {
      if (r.userTexts[0]?.includes("CHILD TASK"))
        return r.toolResults.length === 0
          ? { calls: [{ name: "read_file", args: { file_path: "link/secret.txt" } }] }
          : { text: `child saw: ${r.toolResults.at(-1)}` };
      if (r.toolResults.length === 0)
        return {
          calls: [
            { name: "spawn_agent", args: { task, working_dir: "escape" } },
            { name: "spawn_agent", args: { task, working_dir: "pkg" } },
          ],
        };
      if (r.toolResults.length === 2) {
        const { agent_id } = JSON.parse(r.toolResults[1] as string) as { agent_id: string };
        return { calls: [{ name: "wait", args: { agent_id } }] };
      }
      return { text: "parent done" };
    };
    const result = await run(Array<Step>(8).fill({ route }), "normal");
    expect(result.code, result.stderr).toBe(0);
    const seen = model.seen();
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    const parent = seen.filter((r) => !r.userTexts[0]?.includes("CHILD TASK")).at(-1);
    expect(parent?.toolResults[0]).toMatch(/Permission denied/);
    // The child ran, tried, and was refused: its answer, passed back by wait, says so.
    expect(parent?.toolResults[2]).toMatch(/child saw: Permission denied/);
  });
});
