import {
  claudeCodeNamesOf,
  type HookEventName,
  type PostToolUseOutcome,
  type SessionHooks,
  type StopDecision,
  type ToolCallInfo,
  type ToolOutput,
  withClaudeCodeFields,
} from "@attractor/agent";
import { fromClaudeCodeFields } from "@attractor/agent/internals";
import type { CommandHookSetting, HookSource } from "../config/index.js";
import { type ConfinedLauncher, confinedEnv } from "./confined-hook.js";
import { type HookJson, type HookVerdict, parseHookJson, verdictOf } from "./hook-output.js";
import { type PromptEvaluator, runPromptHook } from "./prompt-hook.js";
import { runHookCommand } from "./run-command.js";

/** Events a hook cannot block: exit 2 only shows stderr to the user. */
const UNBLOCKABLE: ReadonlySet<HookEventName> = new Set([
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
]);

/** Claude Code's default hook timeout. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
/** Claude Code's default timeout of a prompt hook. */
export const PROMPT_HOOK_TIMEOUT_MS = 30_000;

/** What the hooks need from the program running them. */
export interface HookHost {
  readonly projectDir: string;
  /** The environment hook commands run with (CLAUDE_PROJECT_DIR and ATTRACTOR_PROJECT_DIR added). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly sessionId: () => string;
  readonly transcriptPath: () => string | undefined;
  readonly permissionMode: () => string;
  /** Why the session is ending, in Claude Code's words ("clear", "prompt_input_exit", "other"). */
  readonly endReason?: () => string;
  /** Shows a line to the user: hook errors, system messages, output of some events. */
  readonly notify: (tone: "info" | "warning", text: string) => void;
  /** Asks the session's model a prompt hook's question; prompt hooks error without it. */
  readonly evaluatePrompt?: PromptEvaluator;
  /** How confined hooks (an untrusted project's guards) start; undefined: they cannot run. */
  readonly confine?: () => Promise<ConfinedLauncher | undefined>;
}

/** What the PreToolUse hooks decided about a call. */
export type PreToolUseVerdict =
  | { readonly kind: "deny"; readonly message: string; readonly halt?: string }
  | {
      /** allow: skip the permission check; ask: ask the user even if rules allow; none: no opinion. */
      readonly kind: "allow" | "ask" | "none";
      readonly reason?: string;
      /** The arguments to run with, when a hook changed them. */
      readonly arguments?: Readonly<Record<string, unknown>>;
      readonly halt?: string;
    };

/**
 * A hook given as a function: receives the event's input (the JSON a command hook reads on
 * stdin), the call's id for tool events, and a signal aborted at its timeout; resolves to the
 * JSON a command hook would print (Claude Code's fields). A throw is the hook's error.
 */
export type HookFunction = (
  input: Readonly<Record<string, unknown>>,
  toolUseId: string | undefined,
  options: { readonly signal: AbortSignal },
) => Promise<unknown>;

/** Function hooks for one event, with the matcher of a settings group. */
export interface HookFunctionGroup {
  readonly event: HookEventName;
  readonly matcher?: string;
  readonly hooks: readonly HookFunction[];
  /** Seconds each may take (Claude Code's default 60). */
  readonly timeout?: number;
}

interface Group {
  readonly matcher: (target: string | readonly string[]) => boolean;
  readonly commands: readonly HookCommand[];
}

interface HookCommand {
  /** The shell command, or a prompt hook's prompt. */
  readonly command: string;
  /** A prompt hook: `command` is the prompt, evaluated by the session's model. */
  readonly prompt?: boolean;
  readonly timeoutMs: number;
  /** Runs sandboxed and may only block (see HookSource.confined). */
  readonly confined: boolean;
  /** A function hook: `command` is only its key. */
  readonly callback?: HookFunction;
}

/** One command's verdict and how it ran. */
interface RunVerdict {
  readonly verdict: HookVerdict;
  readonly confined: boolean;
  /** A confined command that could not run for want of a sandbox. */
  readonly unconfinable: boolean;
}

/** Command hooks from settings, run the way Claude Code runs them. */
export interface CommandHooks {
  /** Whether any hook is configured for the event. */
  has(event: HookEventName): boolean;
  /** Runs the event's matching commands in parallel; verdicts in configuration order. */
  run(
    event: HookEventName,
    input: Readonly<Record<string, unknown>>,
    target?: string | readonly string[],
  ): Promise<HookVerdict[]>;
  /** The PreToolUse decision for a call (the permission guard acts on it). */
  preToolUse(call: ToolCallInfo): Promise<PreToolUseVerdict>;
  /** The other eight events as session hooks. */
  readonly sessionHooks: SessionHooks;
}

/** A matcher: empty or `*` matches everything; otherwise a regex that must match a whole name. */
export function compileMatcher(matcher: string | undefined): (target: string | readonly string[]) => boolean {
  const m = matcher?.trim() ?? "";
  if (m === "" || m === "*") return () => true;
  let test: (name: string) => boolean;
  try {
    const re = new RegExp(`^(?:${m})$`);
    test = (name) => re.test(name);
  } catch {
    test = (name) => name === m;
  }
  return (target) => (typeof target === "string" ? [target] : target).some(test);
}

function compile(
  sources: readonly HookSource[],
  notify: HookHost["notify"],
  callbacks: readonly HookFunctionGroup[],
): Map<HookEventName, Group[]> {
  const table = new Map<HookEventName, Group[]>();
  let count = 0;
  for (const group of callbacks) {
    if (group.hooks.length === 0) continue;
    const commands = group.hooks.map((callback) => ({
      command: `function #${++count}`,
      callback,
      timeoutMs: group.timeout !== undefined ? group.timeout * 1000 : DEFAULT_HOOK_TIMEOUT_MS,
      confined: false,
    }));
    const list = table.get(group.event) ?? [];
    list.push({ matcher: compileMatcher(group.matcher), commands });
    table.set(group.event, list);
  }
  for (const source of sources) {
    for (const [event, groups] of Object.entries(source.hooks) as [
      HookEventName,
      typeof source.hooks.Stop,
    ][]) {
      for (const group of groups ?? []) {
        const commands: HookCommand[] = [];
        for (const hook of group.hooks as readonly CommandHookSetting[]) {
          if (hook.type === "prompt" && hook.prompt) {
            // The model's answer is text, never a command: safe to evaluate even when confined.
            commands.push({
              command: hook.prompt,
              prompt: true,
              timeoutMs: hook.timeout !== undefined ? hook.timeout * 1000 : PROMPT_HOOK_TIMEOUT_MS,
              confined: source.confined === true,
            });
            continue;
          }
          if (hook.type !== "command" || !hook.command) {
            notify(
              "warning",
              `${source.file}: skipped a ${event} hook of type "${hook.type}" (only "command" and "prompt" hooks run)`,
            );
            continue;
          }
          commands.push({
            command: hook.command,
            timeoutMs: hook.timeout !== undefined ? hook.timeout * 1000 : DEFAULT_HOOK_TIMEOUT_MS,
            confined: source.confined === true,
          });
        }
        if (commands.length === 0) continue;
        const list = table.get(event) ?? [];
        list.push({ matcher: compileMatcher(group.matcher), commands });
        table.set(event, list);
      }
    }
  }
  return table;
}

/** Runs a function hook as a command hook runs: its result read as the JSON it would print. */
async function runHookCallback(
  callback: HookFunction,
  input: Readonly<Record<string, unknown>>,
  timeoutMs: number,
): Promise<HookVerdict> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve("timeout");
    }, timeoutMs);
  });
  const toolUseId = typeof input.tool_use_id === "string" ? input.tool_use_id : undefined;
  try {
    const result = await Promise.race([callback(input, toolUseId, { signal: controller.signal }), timedOut]);
    if (result === "timeout")
      return { kind: "error", message: `hook function timed out after ${timeoutMs} ms` };
    if (result === undefined || result === null) return { kind: "ok", stdout: "" };
    const stdout = JSON.stringify(result);
    const json = typeof result === "object" ? parseHookJson(stdout) : undefined;
    // An answer that is not a hook output object is the hook's error (shown, not blocking), as a
    // command hook that prints something unreadable: never a silent "no objection".
    if (json === undefined)
      return { kind: "error", message: "hook function answered with no hook output object" };
    return { kind: "ok", stdout, json };
  } catch (error) {
    return {
      kind: "error",
      message: `hook function failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    clearTimeout(timer);
  }
}

const joinReasons = (parts: readonly (string | undefined)[]): string =>
  parts.filter((p): p is string => p !== undefined && p.trim() !== "").join("\n");

/** Builds the hooks of the given (already trusted) settings sources. */
export function createCommandHooks(
  sources: readonly HookSource[],
  host: HookHost,
  callbacks: readonly HookFunctionGroup[] = [],
): CommandHooks {
  const table = compile(sources, host.notify, callbacks);
  const functions = new Map<string, HookFunction>();
  for (const groups of table.values())
    for (const g of groups) for (const c of g.commands) if (c.callback) functions.set(c.command, c.callback);
  const env = { ...host.env, CLAUDE_PROJECT_DIR: host.projectDir, ATTRACTOR_PROJECT_DIR: host.projectDir };

  let launcher: Promise<ConfinedLauncher | undefined> | undefined;
  const runDetailed = async (
    event: HookEventName,
    input: Readonly<Record<string, unknown>>,
    target?: string | readonly string[],
  ): Promise<RunVerdict[]> => {
    const groups = table.get(event) ?? [];
    // The same command matched by several groups runs once (confined if any source confines it).
    const commands = new Map<string, { timeoutMs: number; confined: boolean; prompt: boolean }>();
    for (const g of groups) {
      if (target !== undefined && !g.matcher(target)) continue;
      for (const c of g.commands) {
        const key = `${c.callback ? "function" : c.prompt ? "prompt" : "command"}:${c.command}`;
        const before = commands.get(key);
        commands.set(key, {
          timeoutMs: Math.max(before?.timeoutMs ?? 0, c.timeoutMs),
          confined: (before?.confined ?? false) || c.confined,
          prompt: c.prompt === true,
        });
      }
    }
    if (commands.size === 0) return [];
    const transcript = host.transcriptPath();
    const payload = JSON.stringify({
      session_id: host.sessionId(),
      ...(transcript !== undefined && { transcript_path: transcript }),
      cwd: host.projectDir,
      permission_mode: host.permissionMode(),
      hook_event_name: event,
      ...input,
    });
    const results = await Promise.all(
      [...commands].map(async ([key, { timeoutMs, confined, prompt }]): Promise<RunVerdict> => {
        const command = key.slice(key.indexOf(":") + 1);
        const callback = key.startsWith("function:") ? functions.get(command) : undefined;
        if (callback) {
          const payloadObject = JSON.parse(payload) as Record<string, unknown>;
          const verdict = await runHookCallback(callback, payloadObject, timeoutMs);
          return { verdict, confined, unconfinable: false };
        }
        if (prompt) {
          const verdict = await runPromptHook(host.evaluatePrompt, command, payload, timeoutMs);
          return { verdict, confined, unconfinable: false };
        }
        if (!confined) {
          const done = await runHookCommand(command, {
            input: payload,
            cwd: host.projectDir,
            env,
            timeoutMs,
          });
          return { verdict: verdictOf(command, done, timeoutMs), confined, unconfinable: false };
        }
        launcher ??= host.confine?.() ?? Promise.resolve(undefined);
        const launch = await launcher;
        if (!launch) {
          const message = `hook "${command}" was not run: an untrusted project's hooks run only in a sandbox, and none is available here`;
          return { verdict: { kind: "error", message }, confined, unconfinable: true };
        }
        const done = await runHookCommand(command, {
          input: payload,
          cwd: host.projectDir,
          env: confinedEnv(host.env, host.projectDir),
          timeoutMs,
          launch,
        });
        return { verdict: verdictOf(command, done, timeoutMs), confined, unconfinable: false };
      }),
    );
    for (const r of results) report(event, r.verdict);
    return results;
  };
  const run = async (
    event: HookEventName,
    input: Readonly<Record<string, unknown>>,
    target?: string | readonly string[],
  ): Promise<HookVerdict[]> => (await runDetailed(event, input, target)).map((r) => r.verdict);

  /** What every event shows the user: errors, system messages, plain output of quiet events. */
  const report = (event: HookEventName, v: HookVerdict) => {
    if (v.kind === "error") host.notify("warning", `${event} ${v.message}`);
    // Where exit 2 cannot block anything, its stderr is for the user.
    if (v.kind === "block" && UNBLOCKABLE.has(event)) host.notify("warning", `${event} hook: ${v.message}`);
    if (v.kind !== "ok") return;
    if (v.json?.systemMessage) host.notify("warning", v.json.systemMessage);
    const contextEvent = event === "UserPromptSubmit" || event === "SessionStart";
    if (!v.json && !contextEvent && v.stdout.trim() !== "")
      host.notify("info", `${event} hook: ${v.stdout.trim()}`);
  };

  const haltOf = (verdicts: readonly HookVerdict[]): string | undefined => {
    const stops = verdicts.filter(
      (v): v is Extract<HookVerdict, { kind: "ok" }> & { json: HookJson } =>
        v.kind === "ok" && v.json?.continue === false,
    );
    if (stops.length === 0) return undefined;
    return joinReasons(stops.map((v) => v.json.stopReason)) || "a hook asked to stop";
  };

  const toolTarget = (name: string): string[] => [name, ...claudeCodeNamesOf(name)];
  // Scripts written for Claude Code compare tool_name with its names ("Bash", "Edit"): they get
  // that name when one exists, and ours beside it.
  const toolNames = (name: string) => ({
    tool_name: claudeCodeNamesOf(name)[0] ?? name,
    attractor_tool_name: name,
  });

  const preToolUse = async (call: ToolCallInfo): Promise<PreToolUseVerdict> => {
    if (!table.has("PreToolUse")) return { kind: "none" };
    const results = await runDetailed(
      "PreToolUse",
      {
        ...toolNames(call.toolName),
        tool_input: withClaudeCodeFields(call.toolName, call.arguments),
        tool_use_id: call.callId,
      },
      toolTarget(call.toolName),
    );
    const verdicts = results.map((r) => r.verdict);
    const halt = haltOf(verdicts);
    const denials: string[] = [];
    let allow = false;
    let ask: string | undefined;
    let updated: Readonly<Record<string, unknown>> | undefined;
    // A guard that could not run fails closed: the call asks rather than passing unguarded.
    const unguarded = results.find((r) => r.unconfinable);
    if (unguarded && unguarded.verdict.kind === "error") ask = unguarded.verdict.message;
    for (const { verdict: v, confined } of results) {
      if (v.kind === "block") denials.push(v.message);
      if (v.kind !== "ok" || !v.json) continue;
      const specific = v.json.hookSpecificOutput;
      const decision =
        specific?.permissionDecision ??
        (v.json.decision === "block" ? "deny" : v.json.decision === "approve" ? "allow" : undefined);
      const reason = specific?.permissionDecisionReason ?? v.json.reason;
      if (decision === "deny") denials.push(reason ?? "A PreToolUse hook denied this call.");
      if (decision === "ask") ask = reason ?? "a PreToolUse hook asks for confirmation";
      // A confined (untrusted) hook may only restrict: its allow and changed input are ignored.
      if (confined) continue;
      if (decision === "allow") allow = true;
      if (specific?.updatedInput)
        updated = fromClaudeCodeFields(call.toolName, specific.updatedInput, call.arguments);
    }
    if (halt !== undefined) denials.push(`Stopped by a hook: ${halt}`);
    if (denials.length > 0) {
      return {
        kind: "deny",
        message: `Blocked by a PreToolUse hook: ${joinReasons(denials)}`,
        ...(halt !== undefined && { halt }),
      };
    }
    const kind = ask !== undefined ? "ask" : allow ? "allow" : "none";
    return {
      kind,
      ...(ask !== undefined && { reason: ask }),
      ...(updated !== undefined && { arguments: updated }),
    };
  };

  const postToolUse = async (
    call: ToolCallInfo,
    result: ToolOutput,
  ): Promise<PostToolUseOutcome | undefined> => {
    const verdicts = await run(
      "PostToolUse",
      {
        ...toolNames(call.toolName),
        tool_input: withClaudeCodeFields(call.toolName, call.arguments),
        tool_use_id: call.callId,
        tool_response: {
          output: result.output,
          is_error: result.isError,
          success: !result.isError,
          // Claude Code's fields for the same facts, for scripts written against them.
          ...(call.toolName === "shell" && { stdout: result.output, stderr: "" }),
          ...(typeof call.arguments.file_path === "string" && { filePath: call.arguments.file_path }),
        },
      },
      toolTarget(call.toolName),
    );
    const feedback: string[] = [];
    for (const v of verdicts) {
      if (v.kind === "block") feedback.push(v.message);
      if (v.kind === "ok" && v.json) {
        if (v.json.decision === "block")
          feedback.push(v.json.reason ?? "A PostToolUse hook objected to this result.");
        if (v.json.hookSpecificOutput?.additionalContext)
          feedback.push(v.json.hookSpecificOutput.additionalContext);
      }
    }
    const halt = haltOf(verdicts);
    if (feedback.length === 0 && halt === undefined) return undefined;
    return {
      ...(feedback.length > 0 && { feedback: `[PostToolUse hook]\n${joinReasons(feedback)}` }),
      ...(halt !== undefined && { halt }),
    };
  };

  const stopHook =
    (event: "Stop" | "SubagentStop") =>
    async (input: {
      stopHookActive: boolean;
      lastMessage: string;
      agentId?: string;
    }): Promise<StopDecision | undefined> => {
      const verdicts = await run(event, {
        stop_hook_active: input.stopHookActive,
        last_assistant_message: input.lastMessage,
        ...(input.agentId !== undefined && { agent_id: input.agentId }),
      });
      const reasons: string[] = [];
      for (const v of verdicts) {
        if (v.kind === "block") reasons.push(v.message);
        if (v.kind === "ok" && v.json?.decision === "block")
          reasons.push(v.json.reason ?? "A stop hook asks you to continue.");
      }
      const halt = haltOf(verdicts);
      const base = halt !== undefined ? { halt } : {};
      return reasons.length > 0
        ? { action: "continue", reason: joinReasons(reasons), ...base }
        : { action: "allow", ...base };
    };

  const contextOf = (verdicts: readonly HookVerdict[]): string =>
    joinReasons(
      verdicts.map((v) =>
        v.kind !== "ok" ? undefined : v.json ? v.json.hookSpecificOutput?.additionalContext : v.stdout.trim(),
      ),
    );

  const sessionHooks: SessionHooks = {
    ...(table.has("PostToolUse") && { postToolUse }),
    ...(table.has("UserPromptSubmit") && {
      userPromptSubmit: async ({ prompt }) => {
        const verdicts = await run("UserPromptSubmit", { prompt });
        const halt = haltOf(verdicts);
        const blocks = verdicts.flatMap((v) =>
          v.kind === "block"
            ? [v.message]
            : v.kind === "ok" && v.json?.decision === "block"
              ? [v.json.reason ?? "A UserPromptSubmit hook blocked this input."]
              : [],
        );
        if (halt !== undefined) blocks.push(halt);
        if (blocks.length > 0) return { action: "block", reason: joinReasons(blocks) };
        const context = contextOf(verdicts);
        return { action: "allow", ...(context !== "" && { additionalContext: context }) };
      },
    }),
    ...(table.has("Stop") && { stop: stopHook("Stop") }),
    ...(table.has("SubagentStop") && { subagentStop: stopHook("SubagentStop") }),
    ...(table.has("SessionStart") && {
      sessionStart: async ({ source }) => {
        const context = contextOf(await run("SessionStart", { source }, source));
        return context !== "" ? { additionalContext: context } : undefined;
      },
    }),
    ...(table.has("SessionEnd") && {
      sessionEnd: async () => {
        const reason = host.endReason?.() ?? "other";
        await run("SessionEnd", { reason }, reason);
      },
    }),
    ...(table.has("PreCompact") && {
      preCompact: async ({ trigger, focus }) => {
        await run("PreCompact", { trigger, custom_instructions: focus ?? "" }, trigger);
      },
    }),
    ...(table.has("Notification") && {
      notification: async ({ message }) => {
        await run("Notification", { message }, "permission_prompt");
      },
    }),
  };

  return { has: (event) => table.has(event), run, preToolUse, sessionHooks };
}
