import type { ImageData, ToolCallData, ToolResultDocument } from "@attractor/llm";
import { type TruncationConfig, truncateToolOutput } from "../truncation/index.js";
import type { BackgroundProcessTable } from "../types/background-process.js";
import type { AfterToolCallHook, BeforeToolCallHook, ToolCallInfo } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { RegisteredTool, ToolDetails, ToolOutput } from "../types/tool.js";
import {
  ARGUMENT_DEPTH_MESSAGE,
  argumentsWereCut,
  MAX_ARGUMENT_DEPTH,
  nestsDeeperThan,
} from "./argument-depth.js";
import { validateArguments } from "./schema.js";
import { isExpectedFailure } from "./shared/tool-errors.js";

/**
 * One finished tool call as the dispatcher reports it (TOOL_CALL_END, onEnd): the arguments it ran
 * with, its ToolOutput in full and the truncated copy the model gets (stored as a ToolResultRecord).
 */
export interface CompletedToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The arguments the tool ran with (after a rewrite hook), or as parsed when it did not run. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Full, untruncated output. */
  readonly output: string;
  /** What the model receives. */
  readonly modelOutput: string;
  /** Whether modelOutput is shorter than output. */
  readonly truncated: boolean;
  readonly isError: boolean;
  /** Why the call failed (see ToolOutput.errorCode); absent on success. */
  readonly errorCode?: string;
  readonly image?: ImageData;
  /** A document sent in place of modelOutput where the provider takes one (see ToolOutput). */
  readonly document?: ToolResultDocument;
  readonly details?: ToolDetails;
  readonly durationMs: number;
}

/** @deprecated use CompletedToolCall */
export type ToolCallOutcome = CompletedToolCall;

export interface DispatchOptions {
  readonly signal?: AbortSignal;
  /** Run calls concurrently (default true); calls whose targets overlap still run in call order. */
  readonly parallel?: boolean;
  readonly truncation?: TruncationConfig;
  readonly defaultCommandTimeoutMs?: number;
  readonly maxCommandTimeoutMs?: number;
  /** The session's background processes, handed to each tool's context. */
  readonly processes?: BackgroundProcessTable;
  /** Tools the model may call now; others are reported as unknown. All registered tools by default. */
  readonly isAllowed?: (name: string) => boolean;
  readonly beforeToolCall?: BeforeToolCallHook;
  readonly afterToolCall?: AfterToolCallHook;
  readonly onStart?: (call: ToolCallData) => void;
  readonly onOutputDelta?: (callId: string, chunk: string) => void;
  readonly onEnd?: (call: CompletedToolCall) => void;
}

type Parsed =
  | { readonly ok: true; readonly args: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly reason: string };

function parseArguments(call: ToolCallData): Parsed {
  if (argumentsWereCut(call)) return { ok: false, reason: ARGUMENT_DEPTH_MESSAGE };
  if (call.rawArguments === undefined || call.rawArguments.trim() === "")
    return nestsDeeperThan(call.arguments, MAX_ARGUMENT_DEPTH)
      ? { ok: false, reason: ARGUMENT_DEPTH_MESSAGE }
      : { ok: true, args: call.arguments };
  let value: unknown;
  try {
    value = JSON.parse(call.rawArguments);
  } catch (err) {
    return { ok: false, reason: `arguments are not valid JSON (${(err as Error).message})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: "arguments must be a JSON object" };
  }
  if (nestsDeeperThan(value, MAX_ARGUMENT_DEPTH)) return { ok: false, reason: ARGUMENT_DEPTH_MESSAGE };
  return { ok: true, args: value as Record<string, unknown> };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolved write targets of a call, for deciding which calls must not overlap. */
function targetsOf(
  tool: RegisteredTool | undefined,
  parsed: Parsed,
  env: ExecutionEnvironment,
): readonly string[] {
  if (!tool?.targets || !parsed.ok) return [];
  try {
    return tool.targets(parsed.args).map((t) => (t === "*" ? "*" : env.resolvePath(t)));
  } catch {
    return ["*"];
  }
}

function overlaps(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  if (a.includes("*") || b.includes("*")) return true;
  return a.some((t) => b.includes(t));
}

/**
 * Runs a round of tool calls: lookup, argument parsing and schema validation, the before hook,
 * execution, the after hook and truncation. Outcomes come back in call order. Never rejects for a
 * tool's failure: every problem becomes an error outcome the model can read.
 */
export async function dispatchToolCalls(
  calls: readonly ToolCallData[],
  registry: Pick<ProfileToolRegistry, "get">,
  env: ExecutionEnvironment,
  options: DispatchOptions = {},
): Promise<CompletedToolCall[]> {
  const lookup = (name: string): RegisteredTool | undefined =>
    options.isAllowed && !options.isAllowed(name) ? undefined : registry.get(name);
  if (options.parallel === false || calls.length <= 1) {
    const out: CompletedToolCall[] = [];
    for (const call of calls)
      out.push(await runCall(call, lookup(call.name), parseArguments(call), env, options));
    return out;
  }
  const prepared = calls.map((call) => {
    const tool = lookup(call.name);
    const parsed = parseArguments(call);
    return { call, tool, parsed, targets: targetsOf(tool, parsed, env) };
  });
  const running: Promise<CompletedToolCall>[] = [];
  for (const p of prepared) {
    // Wait for every earlier call that writes where this one does.
    const before = running.filter((_, j) => overlaps(prepared[j]?.targets ?? [], p.targets));
    running.push(Promise.allSettled(before).then(() => runCall(p.call, p.tool, p.parsed, env, options)));
  }
  const settled = await Promise.allSettled(running);
  return settled.map((s, i) =>
    s.status === "fulfilled" ? s.value : internalFailure(calls[i] as ToolCallData, s.reason),
  );
}

function internalFailure(call: ToolCallData, reason: unknown): CompletedToolCall {
  const output = `Tool error (${call.name}): ${message(reason)}`;
  return {
    toolCallId: call.id,
    toolName: call.name,
    arguments: call.arguments,
    output,
    modelOutput: output,
    truncated: false,
    isError: true,
    errorCode: "tool_failed",
    durationMs: 0,
  };
}

async function runCall(
  call: ToolCallData,
  tool: RegisteredTool | undefined,
  parsed: Parsed,
  env: ExecutionEnvironment,
  options: DispatchOptions,
): Promise<CompletedToolCall> {
  const started = performance.now();
  let args: Readonly<Record<string, unknown>> = parsed.ok ? parsed.args : call.arguments;
  const safely = (f: () => void): void => {
    try {
      f();
    } catch {
      // A host callback's failure must not turn into the tool's.
    }
  };
  safely(() => options.onStart?.(parsed.ok ? { ...call, arguments: parsed.args } : call));

  const finish = (result: ToolOutput & { readonly isError: boolean }): CompletedToolCall => {
    const modelOutput = truncateToolOutput(result.output, call.name, options.truncation);
    const outcome: CompletedToolCall = {
      toolCallId: call.id,
      toolName: call.name,
      arguments: args,
      output: result.output,
      modelOutput,
      truncated: modelOutput !== result.output,
      isError: result.isError,
      ...(result.isError && result.errorCode !== undefined && { errorCode: result.errorCode }),
      ...(result.image !== undefined && { image: result.image }),
      ...(result.document !== undefined && { document: result.document }),
      ...(result.details !== undefined && { details: result.details }),
      durationMs: Math.round(performance.now() - started),
    };
    safely(() => options.onEnd?.(outcome));
    return outcome;
  };
  const error = (output: string, errorCode: string): CompletedToolCall =>
    finish({ output, isError: true, errorCode });

  if (!tool) return error(`Unknown tool: ${call.name}`, "unknown_tool");
  if (!parsed.ok)
    return error(`Invalid arguments for tool: ${call.name}: ${parsed.reason}`, "invalid_arguments");
  const problems = await validateArguments(tool.definition.parameters, args);
  if (problems) return error(`Invalid arguments for tool: ${call.name}: ${problems}`, "invalid_arguments");

  let info: ToolCallInfo = {
    callId: call.id,
    toolName: call.name,
    arguments: args,
    workingDirectory: env.workingDirectory(),
  };
  if (options.beforeToolCall) {
    let decision: Awaited<ReturnType<BeforeToolCallHook>>;
    try {
      decision = await options.beforeToolCall(info);
    } catch (err) {
      return error(
        `Tool call blocked (${call.name}): the beforeToolCall hook failed: ${message(err)}`,
        "hook_failed",
      );
    }
    if (decision?.action === "deny") return error(decision.message, "denied");
    if (decision?.action === "rewrite") {
      args = decision.arguments;
      const again = await validateArguments(tool.definition.parameters, args);
      if (again) return error(`Invalid arguments for tool: ${call.name}: ${again}`, "invalid_arguments");
      info = { ...info, arguments: args };
    }
  }

  let result: ToolOutput & { readonly isError: boolean };
  try {
    const raw = await tool.executor(args, env, {
      toolCallId: call.id,
      ...(options.signal !== undefined && { signal: options.signal }),
      onOutput: (chunk) => safely(() => options.onOutputDelta?.(call.id, chunk)),
      ...(options.defaultCommandTimeoutMs !== undefined && {
        defaultCommandTimeoutMs: options.defaultCommandTimeoutMs,
      }),
      ...(options.maxCommandTimeoutMs !== undefined && { maxCommandTimeoutMs: options.maxCommandTimeoutMs }),
      ...(options.processes !== undefined && { processes: options.processes }),
    });
    const out: ToolOutput = typeof raw === "string" ? { output: raw } : raw;
    result = {
      output: String(out.output ?? ""),
      isError: out.isError ?? false,
      ...(out.errorCode !== undefined && { errorCode: out.errorCode }),
      ...(out.details !== undefined && { details: out.details }),
      ...(out.image !== undefined && { image: out.image }),
      ...(out.document !== undefined && { document: out.document }),
    };
  } catch (err) {
    // One failure contract: an expected failure's message is the result as it is, with its code;
    // anything else is a bug in the tool, reported with the tool's name.
    result = isExpectedFailure(err)
      ? { output: err.message, isError: true, errorCode: err.code }
      : { output: `Tool error (${call.name}): ${message(err)}`, isError: true, errorCode: "tool_failed" };
  }

  if (options.afterToolCall) {
    try {
      const replaced = await options.afterToolCall(info, result);
      // A replacement without an image keeps the tool's; isError defaults to false as for a tool.
      if (replaced)
        result = {
          ...(result.image !== undefined && { image: result.image }),
          ...replaced,
          isError: replaced.isError ?? false,
        };
    } catch (err) {
      result = {
        output: `${result.output}\n[afterToolCall hook failed: ${message(err)}]`,
        isError: result.isError,
        ...(result.errorCode !== undefined && { errorCode: result.errorCode }),
      };
    }
  }
  return finish(result);
}
