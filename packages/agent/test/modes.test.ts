import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import type { Message } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { isGitReadCommand } from "../src/modes/git-read.js";
import { READ_ONLY_DEFAULT_MAX_TOOL_ROUNDS } from "../src/modes/read-only.js";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { Session } from "../src/session/session.js";
import { type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import type { SessionConfig } from "../src/types/config.js";
import type { SessionEvent } from "../src/types/events.js";
import { collect, tempDir } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
  await mkdir(path.join(dir, "src"));
  await writeFile(path.join(dir, "src/app.js"), "export const greeting = 'hello';\n");
});
afterEach(() => remove());

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd: dir,
    encoding: "utf8",
  });

function start(replies: Parameters<typeof scriptedClient>[0], config: Partial<SessionConfig>) {
  const client = scriptedClient(replies);
  const session = new Session({
    profile: createOpenAICompatibleProfile("local-model"),
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client,
    config,
  });
  return { session, client, events: collect(session.events()) };
}

const systemText = (messages: readonly Message[]) =>
  messages[0]!.content.map((p) => (p.kind === "text" ? p.text : "")).join("");
const ends = (events: readonly SessionEvent[]) =>
  events.flatMap((e) => (e.kind === "tool_call_end" ? [e.data] : []));

describe("read-only modes", () => {
  it("plan mode offers only read-only tools and refuses any other call with a clear result", async () => {
    const { session, client, events } = start(
      [
        {
          toolCalls: [
            { name: "read_file", args: { file_path: "src/app.js" } },
            { name: "write_file", args: { file_path: "src/new.js", content: "x" } },
            { name: "shell", args: { command: "touch made-by-shell" } },
          ],
        },
        { text: "Plan: 1. Change the greeting in src/app.js. 2. Add a test." },
      ],
      { readOnlyMode: "plan" },
    );
    await session.submit("Plan how to make the greeting configurable.");
    await session.close();
    const all = await events;

    const request = client.requests[0]!;
    expect(request.tools?.map((t) => t.name)).toEqual([
      "read_file",
      "shell_output",
      "grep",
      "glob",
      "list_dir",
    ]);
    expect(systemText(request.messages)).toContain("# Mode: plan (read-only)");
    expect(systemText(request.messages)).toContain("Produce a plan; change nothing.");

    const results = ends(all);
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ["read_file", false],
      ["write_file", true],
      ["shell", true],
    ]);
    expect(results[0]!.output).toContain("greeting");
    expect(results[1]!.output).toMatch(
      /^Refused in plan mode: write_file .* did not run\. Put the change in your plan/,
    );
    expect(results[2]!.output).toMatch(/^Refused in plan mode: shell/);
    expect(existsSync(path.join(dir, "src/new.js"))).toBe(false);
    expect(existsSync(path.join(dir, "made-by-shell"))).toBe(false);
    const end = all.find((e) => e.kind === "processing_end");
    expect(end?.kind === "processing_end" && end.data.reason).toBe("completed");
  });

  it("review mode runs git read commands and refuses every other shell command", async () => {
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    await writeFile(path.join(dir, "src/app.js"), "export const greeting = 'hi there';\n");
    const head = git("rev-parse", "HEAD");
    const refusedCommands = [
      "git commit -am sneaky",
      "git diff > diff.txt",
      "git diff --output=diff.txt",
      "git status; touch pwned",
      "rm -rf src",
      "git -c core.pager=cat log",
      "git branch feature",
      "git checkout -- src/app.js",
    ];
    const { session, client, events } = start(
      [
        {
          toolCalls: [
            { name: "shell", args: { command: "git status --short" } },
            { name: "shell", args: { command: "git diff" } },
            { name: "shell", args: { command: 'git log --oneline -n 5 -- "src/app.js"' } },
          ],
        },
        { toolCalls: refusedCommands.map((command) => ({ name: "shell", args: { command } })) },
        {
          toolCalls: [
            { name: "edit_file", args: { file_path: "src/app.js", old_string: "hi", new_string: "yo" } },
          ],
        },
        { text: "Review: the greeting changed; no tests cover it." },
      ],
      { readOnlyMode: "review" },
    );
    await session.submit("Review my changes.");
    await session.close();
    const all = await events;

    const request = client.requests[0]!;
    expect(request.tools?.map((t) => t.name)).toEqual([
      "read_file",
      "shell",
      "shell_output",
      "grep",
      "glob",
      "list_dir",
    ]);
    expect(systemText(request.messages)).toContain("# Mode: review (read-only)");
    const results = ends(all);
    expect(results.slice(0, 3).map((r) => r.isError)).toEqual([false, false, false]);
    expect(results[0]!.output).toContain("M src/app.js");
    expect(results[1]!.output).toContain("+export const greeting = 'hi there';");
    expect(results[2]!.output).toContain("first");
    const refused = results.slice(3, 3 + refusedCommands.length);
    for (const [i, r] of refused.entries()) {
      expect(r.isError).toBe(true);
      expect(r.output).toContain("Refused in review mode: the shell runs only git read commands");
      expect(r.output).toContain(refusedCommands[i]);
    }
    expect(results.at(-1)).toMatchObject({ toolName: "edit_file", isError: true });
    expect(results.at(-1)!.output).toMatch(/^Refused in review mode: edit_file/);

    expect(await readFile(path.join(dir, "src/app.js"), "utf8")).toBe(
      "export const greeting = 'hi there';\n",
    );
    expect(existsSync(path.join(dir, "diff.txt"))).toBe(false);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("branch", "--list")).not.toContain("feature");
  });

  it("caps tool rounds lower by default, and a configured limit still wins", async () => {
    // A different call each round: a repeated one would be stopped by loop detection first.
    const forever = (_r: unknown, i: number): ScriptedReply => ({
      toolCalls: [{ name: "glob", args: { pattern: `**/*${i}.js` } }],
    });
    const capped = start(forever, { readOnlyMode: "explore" });
    await capped.session.submit("What files are there?");
    await capped.session.close();
    const limit = (await capped.events).find((e) => e.kind === "turn_limit");
    expect(limit?.kind === "turn_limit" && limit.data).toMatchObject({
      limit: "max_tool_rounds_per_input",
      value: READ_ONLY_DEFAULT_MAX_TOOL_ROUNDS,
      toolRounds: 40,
    });

    const configured = start(forever, { readOnlyMode: "explore", maxToolRoundsPerInput: 3 });
    await configured.session.submit("What files are there?");
    await configured.session.close();
    const own = (await configured.events).find((e) => e.kind === "turn_limit");
    expect(own?.kind === "turn_limit" && own.data.value).toBe(3);
  });

  it("changes at runtime through updateConfig", async () => {
    const write = {
      toolCalls: [{ name: "write_file", args: { file_path: "notes.md", content: "# Notes\n" } }],
    };
    const { session, client, events } = start(
      [write, { text: "Cannot in explore mode." }, write, { text: "Written." }],
      {
        readOnlyMode: "explore",
      },
    );
    await session.submit("Write notes.md");
    expect(existsSync(path.join(dir, "notes.md"))).toBe(false);
    session.updateConfig({ readOnlyMode: undefined });
    await session.submit("Now write it.");
    await session.close();
    expect(await readFile(path.join(dir, "notes.md"), "utf8")).toBe("# Notes\n");
    expect(systemText(client.requests[0]!.messages)).toContain("# Mode: explore (read-only)");
    expect(systemText(client.requests[2]!.messages)).not.toContain("# Mode:");
    expect(client.requests[2]!.tools?.map((t) => t.name)).toContain("write_file");
    expect(ends(await events).map((r) => r.isError)).toEqual([true, false]);
  });
});

describe("git read commands", () => {
  it.each([
    ["git status", true],
    ["git status --short", true],
    ["git diff", true],
    ["git diff --staged -- src/a.ts", true],
    ["git --no-pager log --oneline -n 10", true],
    ["git -C sub show HEAD~1:src/a.ts", true],
    ['git log --format="%h %s" -- "src/my file.ts"', true],
    ["git blame -L 10,20 src/a.ts", true],
    ["git grep -n TODO", true],
    ["git branch --show-current", true],
    ["git stash list", true],
    ["  git diff  ", true],
    ["git commit -m x", false],
    ["git push", false],
    ["git checkout main", false],
    ["git branch -D main", false],
    ["git branch new", false],
    ["git stash", false],
    ["git stash pop", false],
    ["git diff --output=patch.txt", false],
    ["git log --output patch.txt", false],
    ["git grep -Ovim TODO", false],
    ["git grep --open-files-in-pager=vim TODO", false],
    ["git -c core.pager=sh log", false],
    ["git diff | head", false],
    ["git diff && rm -rf .", false],
    ["git log; ls", false],
    ["git show $(whoami)", false],
    ["git show `whoami`", false],
    ["git diff > out", false],
    ["git diff\nrm x", false],
    ["GIT_PAGER=sh git log", false],
    ['git log "unterminated', false],
    ["gitk", false],
    ["", false],
  ])("%j → %s", (command, expected) => {
    expect(isGitReadCommand(command)).toBe(expected);
  });
});
