import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HookEventName, ToolCallInfo } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HookSource } from "../src/config/index.js";
import {
  type CommandHooks,
  compileMatcher,
  createCommandHooks,
  projectHooksGate,
} from "../src/hooks/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-hooks-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Outcome = "exit0" | "exit2" | "json" | "timeout" | "garbage";
const OUTCOMES: readonly Outcome[] = ["exit0", "exit2", "json", "timeout", "garbage"];

/** The JSON each event's hook prints for the "json" outcome. */
const JSON_OUTPUT: Record<HookEventName, unknown> = {
  PreToolUse: {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "json says no",
    },
  },
  PostToolUse: { decision: "block", reason: "json says no" },
  UserPromptSubmit: { decision: "block", reason: "json says no" },
  Stop: { decision: "block", reason: "json says no" },
  SubagentStop: { decision: "block", reason: "json says no" },
  SessionStart: { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "json says no" } },
  SessionEnd: { systemMessage: "json says no" },
  PreCompact: { systemMessage: "json says no" },
  Notification: { systemMessage: "json says no" },
};

/** A real script per event and outcome; it saves the JSON it was given on stdin. */
async function script(event: HookEventName, outcome: Outcome): Promise<string> {
  const file = join(dir, `${event}-${outcome}.sh`);
  const saved = join(dir, `${event}-${outcome}.stdin.json`);
  const body = {
    exit0: "echo 'plain output'\nexit 0",
    exit2: "echo 'reason from stderr' >&2\nexit 2",
    json: `cat <<'EOF'\n${JSON.stringify(JSON_OUTPUT[event])}\nEOF\nexit 0`,
    timeout: "sleep 30\nexit 0",
    garbage: 'printf \'{"decision": "block", \\001\\002 not json\'\nexit 0',
  }[outcome];
  await writeFile(file, `#!/bin/sh\ncat > '${saved}'\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

interface Notice {
  readonly tone: "info" | "warning";
  readonly text: string;
}

function hooksFor(event: HookEventName, command: string, notices: Notice[], timeout = 0.5): CommandHooks {
  const sources: HookSource[] = [
    {
      file: "settings.json",
      scope: "user",
      hooks: { [event]: [{ hooks: [{ type: "command", command, timeout }] }] },
    },
  ];
  return createCommandHooks(sources, {
    projectDir: dir,
    env: { PATH: process.env.PATH },
    sessionId: () => "session-1",
    transcriptPath: () => "/tmp/transcript.jsonl",
    permissionMode: () => "normal",
    notify: (tone, text) => notices.push({ tone, text }),
  });
}

const SHELL_CALL: ToolCallInfo = {
  callId: "call_1",
  toolName: "shell",
  arguments: { command: "rm -rf build", timeout_ms: 5000 },
};

/** Runs the event through the hooks as the session would, and returns what the session gets. */
async function fire(event: HookEventName, hooks: CommandHooks): Promise<unknown> {
  const s = hooks.sessionHooks;
  switch (event) {
    case "PreToolUse":
      return hooks.preToolUse(SHELL_CALL);
    case "PostToolUse":
      return s.postToolUse?.(SHELL_CALL, { output: "removed", isError: false });
    case "UserPromptSubmit":
      return s.userPromptSubmit?.({ prompt: "deploy it" });
    case "Stop":
      return s.stop?.({ stopHookActive: false, lastMessage: "Done." });
    case "SubagentStop":
      return s.subagentStop?.({ stopHookActive: true, lastMessage: "Done.", agentId: "agent-7" });
    case "SessionStart":
      return s.sessionStart?.({ source: "startup" });
    case "SessionEnd":
      return s.sessionEnd?.({ reason: "closed" });
    case "PreCompact":
      return s.preCompact?.({ trigger: "manual", focus: "the parser" });
    case "Notification":
      return s.notification?.({ message: "attractor needs your permission to use shell" });
  }
}

const blocked = (text: string) => expect.stringContaining(text);
const timedOut = { tone: "warning", text: expect.stringMatching(/timed out after/) };

/**
 * What the session receives for each event and outcome, and what the user is shown. Exit 0 goes
 * on; exit 2 blocks where the event can block; JSON decides; a timeout or garbage never blocks.
 */
const EXPECTED: Record<HookEventName, Record<Outcome, { result: unknown; notices: unknown[] }>> = {
  PreToolUse: {
    exit0: { result: { kind: "none" }, notices: [{ tone: "info", text: "PreToolUse hook: plain output" }] },
    exit2: { result: { kind: "deny", message: blocked("reason from stderr") }, notices: [] },
    json: { result: { kind: "deny", message: blocked("json says no") }, notices: [] },
    timeout: { result: { kind: "none" }, notices: [timedOut] },
    garbage: {
      result: { kind: "none" },
      notices: [{ tone: "info", text: expect.stringContaining("not json") }],
    },
  },
  PostToolUse: {
    exit0: { result: undefined, notices: [{ tone: "info", text: "PostToolUse hook: plain output" }] },
    exit2: { result: { feedback: blocked("reason from stderr") }, notices: [] },
    json: { result: { feedback: blocked("json says no") }, notices: [] },
    timeout: { result: undefined, notices: [timedOut] },
    garbage: { result: undefined, notices: [{ tone: "info", text: expect.stringContaining("not json") }] },
  },
  UserPromptSubmit: {
    exit0: { result: { action: "allow", additionalContext: "plain output" }, notices: [] },
    exit2: { result: { action: "block", reason: "reason from stderr" }, notices: [] },
    json: { result: { action: "block", reason: "json says no" }, notices: [] },
    timeout: { result: { action: "allow" }, notices: [timedOut] },
    garbage: {
      result: { action: "allow", additionalContext: expect.stringContaining("not json") },
      notices: [],
    },
  },
  Stop: {
    exit0: { result: { action: "allow" }, notices: [{ tone: "info", text: "Stop hook: plain output" }] },
    exit2: { result: { action: "continue", reason: "reason from stderr" }, notices: [] },
    json: { result: { action: "continue", reason: "json says no" }, notices: [] },
    timeout: { result: { action: "allow" }, notices: [timedOut] },
    garbage: {
      result: { action: "allow" },
      notices: [{ tone: "info", text: expect.stringContaining("not json") }],
    },
  },
  SubagentStop: {
    exit0: {
      result: { action: "allow" },
      notices: [{ tone: "info", text: "SubagentStop hook: plain output" }],
    },
    exit2: { result: { action: "continue", reason: "reason from stderr" }, notices: [] },
    json: { result: { action: "continue", reason: "json says no" }, notices: [] },
    timeout: { result: { action: "allow" }, notices: [timedOut] },
    garbage: {
      result: { action: "allow" },
      notices: [{ tone: "info", text: expect.stringContaining("not json") }],
    },
  },
  SessionStart: {
    exit0: { result: { additionalContext: "plain output" }, notices: [] },
    exit2: {
      result: undefined,
      notices: [{ tone: "warning", text: "SessionStart hook: reason from stderr" }],
    },
    json: { result: { additionalContext: "json says no" }, notices: [] },
    timeout: { result: undefined, notices: [timedOut] },
    garbage: { result: { additionalContext: expect.stringContaining("not json") }, notices: [] },
  },
  SessionEnd: quietEvent("SessionEnd"),
  PreCompact: quietEvent("PreCompact"),
  Notification: quietEvent("Notification"),
};

function quietEvent(event: string): Record<Outcome, { result: unknown; notices: unknown[] }> {
  return {
    exit0: { result: undefined, notices: [{ tone: "info", text: `${event} hook: plain output` }] },
    exit2: { result: undefined, notices: [{ tone: "warning", text: `${event} hook: reason from stderr` }] },
    json: { result: undefined, notices: [{ tone: "warning", text: "json says no" }] },
    timeout: { result: undefined, notices: [timedOut] },
    garbage: { result: undefined, notices: [{ tone: "info", text: expect.stringContaining("not json") }] },
  };
}

/** Fields of the stdin JSON each event carries besides the common ones. */
const INPUT_FIELDS: Record<HookEventName, Record<string, unknown>> = {
  PreToolUse: {
    tool_name: "Bash",
    attractor_tool_name: "shell",
    tool_input: { command: "rm -rf build", timeout_ms: 5000, timeout: 5000 },
    tool_use_id: "call_1",
  },
  PostToolUse: {
    tool_name: "Bash",
    attractor_tool_name: "shell",
    tool_response: { output: "removed", is_error: false, success: true, stdout: "removed" },
  },
  UserPromptSubmit: { prompt: "deploy it" },
  Stop: { stop_hook_active: false, last_assistant_message: "Done." },
  SubagentStop: { stop_hook_active: true, agent_id: "agent-7" },
  SessionStart: { source: "startup" },
  SessionEnd: { reason: "other" },
  PreCompact: { trigger: "manual", custom_instructions: "the parser" },
  Notification: { message: "attractor needs your permission to use shell" },
};

describe("hooks: each event × exit 0 / exit 2 / JSON / timeout / garbage, with real scripts", () => {
  for (const event of Object.keys(EXPECTED) as HookEventName[]) {
    for (const outcome of OUTCOMES) {
      it(`${event} · ${outcome}`, async () => {
        const notices: Notice[] = [];
        const hooks = hooksFor(
          event,
          await script(event, outcome),
          notices,
          outcome === "timeout" ? 0.3 : 10,
        );
        const result = await fire(event, hooks);
        const expected = EXPECTED[event][outcome];
        if (expected.result === undefined) expect(result).toBeUndefined();
        else expect(result).toEqual(expected.result);
        expect(notices).toEqual(expected.notices);
        const input = JSON.parse(await readFile(join(dir, `${event}-${outcome}.stdin.json`), "utf8"));
        expect(input).toMatchObject({
          session_id: "session-1",
          transcript_path: "/tmp/transcript.jsonl",
          cwd: dir,
          permission_mode: "normal",
          hook_event_name: event,
          ...INPUT_FIELDS[event],
        });
      });
    }
  }
});

describe("hooks: matchers, parallel runs, updated input", () => {
  it("matches Claude Code tool names to ours on every profile, regexes whole-name", () => {
    const names = (tool: string, claude: string[]) => [tool, ...claude];
    const bash = compileMatcher("Bash");
    expect(bash(names("shell", ["Bash"]))).toBe(true);
    expect(bash(names("read_file", ["Read"]))).toBe(false);
    const edits = compileMatcher("Edit|Write");
    expect(edits(names("apply_patch", ["Edit", "MultiEdit"]))).toBe(true);
    expect(edits(names("write_file", ["Write"]))).toBe(true);
    expect(edits(names("read_file", ["Read"]))).toBe(false);
    expect(compileMatcher("mcp__.*")("mcp__github__create_issue")).toBe(true);
    expect(compileMatcher("mcp__.*")("shell")).toBe(false);
    expect(compileMatcher("")("anything")).toBe(true);
    expect(compileMatcher("*")("anything")).toBe(true);
    // An invalid regex is compared literally instead of failing.
    expect(compileMatcher("Bash(")("Bash(")).toBe(true);
  });

  it("runs every matching hook in parallel and merges: one deny is enough", async () => {
    const a = join(dir, "par-a.sh");
    const b = join(dir, "par-b.sh");
    // Each waits until the other has started: they can only both finish when run at once.
    await writeFile(
      a,
      `#!/bin/sh\ntouch '${dir}/a.started'\nwhile [ ! -f '${dir}/b.started' ]; do sleep 0.05; done\nexit 0\n`,
    );
    await writeFile(
      b,
      `#!/bin/sh\ntouch '${dir}/b.started'\nwhile [ ! -f '${dir}/a.started' ]; do sleep 0.05; done\necho 'b denies' >&2\nexit 2\n`,
    );
    await chmod(a, 0o755);
    await chmod(b, 0o755);
    const notices: Notice[] = [];
    const hooks = createCommandHooks(
      [
        {
          file: "settings.json",
          scope: "user",
          hooks: {
            PreToolUse: [
              { matcher: "Bash", hooks: [{ type: "command", command: a, timeout: 20 }] },
              { matcher: "shell", hooks: [{ type: "command", command: b, timeout: 20 }] },
              { matcher: "Read", hooks: [{ type: "command", command: "exit 2" }] },
            ],
          },
        },
      ],
      {
        projectDir: dir,
        env: { PATH: process.env.PATH },
        sessionId: () => "s",
        transcriptPath: () => undefined,
        permissionMode: () => "normal",
        notify: (tone, text) => notices.push({ tone, text }),
      },
    );
    expect(await hooks.preToolUse(SHELL_CALL)).toEqual({ kind: "deny", message: blocked("b denies") });
  });

  it("maps updatedInput written with Claude Code's field names back to ours, and allow skips asking", async () => {
    const notices: Notice[] = [];
    const output = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        updatedInput: { command: "rm -rf build --dry-run", timeout: 9000, timeout_ms: 5000 },
      },
    };
    const file = join(dir, "rewrite.sh");
    await writeFile(file, `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify(output)}'\n`);
    await chmod(file, 0o755);
    const hooks = hooksFor("PreToolUse", file, notices, 10);
    expect(await hooks.preToolUse(SHELL_CALL)).toEqual({
      kind: "allow",
      arguments: { command: "rm -rf build --dry-run", timeout_ms: 9000 },
    });
  });

  it("a hook that leaves a background process behind answers when it exits, not at its timeout", async () => {
    const notices: Notice[] = [];
    const file = join(dir, "background.sh");
    await writeFile(file, "#!/bin/sh\ncat >/dev/null\nsleep 30 &\necho 'started a watcher'\nexit 0\n");
    await chmod(file, 0o755);
    const hooks = hooksFor("UserPromptSubmit", file, notices, 20);
    expect(await hooks.sessionHooks.userPromptSubmit?.({ prompt: "x" })).toEqual({
      action: "allow",
      additionalContext: "started a watcher",
    });
    expect(notices).toEqual([]);
  });

  it("lets project hooks act only when the project is trusted", () => {
    const project: HookSource = { file: "/p/.claude/settings.json", scope: "project", hooks: { Stop: [] } };
    const user: HookSource = { file: "/home/settings.json", scope: "user", hooks: { Stop: [] } };
    expect(projectHooksGate({ sources: [user], trustProject: false })).toEqual({ allowed: true });
    const refused = projectHooksGate({ sources: [user, project], trustProject: false });
    expect(refused.allowed).toBe(false);
    expect(refused.warning).toContain("/p/.claude/settings.json");
    expect(refused.warning).toContain("--trust-project");
    expect(projectHooksGate({ sources: [project], trustProject: true })).toEqual({ allowed: true });
  });
});
