import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  claudeCodeNamesOf,
  HOOK_EVENTS,
  type HookEventName,
  type McpServerConfig as ManagerServerConfig,
  type RegisteredTool,
  type SessionEvent,
  type SubagentType,
  withClaudeCodeFields,
} from "@attractor/agent";
import { attractorHome, claudeUserDir, loadSettings, SettingsError } from "../config/index.js";
import type { HookFunctionGroup } from "../hooks/index.js";
import {
  type PermissionAnswer,
  type PermissionMode,
  type PermissionRequest,
  toPermissionMode,
} from "../permissions/index.js";
import {
  ConfigurationError,
  createRuntime,
  type Runtime,
  type RuntimeOptions,
  type RuntimeUi,
  updateItem,
} from "../runtime/index.js";
import { createSessionStore, type SessionStore } from "../store/index.js";
import { createClaudeStream } from "./claude-stream.js";
import { QueryControlError, QueryError, QueryOptionError } from "./errors.js";
import { permissionSuggestions, readPermissionResult } from "./permission-updates.js";
import { createRunTracker } from "./run-result.js";
import { type ConnectedSdkServer, connectSdkServer } from "./sdk-mcp.js";
import { copyStoredSession } from "./session-copy.js";
import { createOutputCheck, type OutputCheck, outputInstructions } from "./structured-output.js";
import type {
  CanUseTool,
  HookCallbackMatcher,
  Query,
  QueryOptions,
  QueryPermissionMode,
  SDKMessage,
  SDKPartialAssistantMessage,
  SDKResultMessage,
  SDKUserMessageInput,
} from "./types.js";

/** How many times a final answer that does not fit the output schema is sent back to be fixed. */
const OUTPUT_RETRIES = 2;

/** A run could not start: its configuration is one the runtime cannot run with. */
export class QueryStartError extends QueryError {
  override readonly name = "QueryStartError";
  constructor(
    message: string,
    /** The runtime's own error (ConfigurationError, SettingsError…). */
    override readonly cause: unknown,
  ) {
    super(`query(): ${message}`);
  }
}

/**
 * Runs a task as the CLI runs it (same permissions, hooks, checkpoints, session store) and yields
 * the Claude Agent SDK's messages: `system`/`init`, an `assistant` message per model response, a
 * `user` message per tool result, and a `result` per user message. Bad options reject the first
 * `next()` with a QueryOptionError; the generator ends after the last result.
 */
export function query(params: {
  readonly prompt: string | AsyncIterable<SDKUserMessageInput>;
  readonly options?: QueryOptions;
}): Query {
  const options = params.options ?? {};
  const queue: SDKMessage[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  let runtime: Runtime | undefined;
  let ready: (value: Runtime | undefined) => void = () => {};
  const runtimeReady = new Promise<Runtime | undefined>((r) => {
    ready = r;
  });
  const push = (message: SDKMessage) => {
    queue.push(message);
    wake?.();
  };
  const stop: StopState = { aborted: false, timedOut: false, interrupted: false };

  const run = async () => {
    try {
      await execute(params.prompt, options, push, stop, (r) => {
        runtime = r;
        ready(r);
      });
    } catch (error) {
      failure = error;
    } finally {
      ready(undefined);
      finished = true;
      wake?.();
    }
  };

  // The run starts at once (as the Claude Agent SDK's does), so controls work before iteration.
  void run();
  async function* messages(): AsyncGenerator<SDKMessage, void> {
    try {
      for (;;) {
        const next = queue.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        if (finished) {
          if (failure !== undefined) throw failure;
          return;
        }
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = undefined;
      }
    } finally {
      // A caller that stops iterating (break, return) ends the run: nothing keeps working unseen.
      if (!finished) stop.cancel?.();
    }
  }

  const generator = messages();
  const control = async (method: "setModel" | "setPermissionMode"): Promise<Runtime> => {
    const r = runtime ?? (await runtimeReady);
    if (!r || finished) throw new QueryControlError(method, "the query is not running");
    return r;
  };
  return Object.assign(generator, {
    async interrupt() {
      stop.interrupted = true;
      const r = runtime ?? (await runtimeReady);
      await r?.interrupt();
    },
    async setPermissionMode(mode: QueryPermissionMode) {
      const ours = toPermissionMode(mode);
      if (ours === undefined)
        throw new QueryControlError("setPermissionMode", `unknown permission mode ${JSON.stringify(mode)}`);
      (await control("setPermissionMode")).setMode(ours);
    },
    async setModel(model: string) {
      try {
        (await control("setModel")).setModel(model);
      } catch (error) {
        if (error instanceof QueryError) throw error;
        throw new QueryControlError("setModel", error instanceof Error ? error.message : String(error));
      }
    },
  });
}

interface StopState {
  aborted: boolean;
  timedOut: boolean;
  interrupted: boolean;
  /** Ends the run as an abort does; set once the run has started. */
  cancel?: () => void;
}

/** Builds the runtime, runs each user message to its result, and closes everything. */
async function execute(
  prompt: string | AsyncIterable<SDKUserMessageInput>,
  options: QueryOptions,
  push: (message: SDKMessage) => void,
  stop: StopState,
  started: (runtime: Runtime) => void,
): Promise<void> {
  checkOptions(options, prompt);
  const env = options.env ?? process.env;
  const projectDir = resolve(options.cwd ?? process.cwd());
  const home = attractorHome(env as NodeJS.ProcessEnv);
  const schema = options.outputSchema ?? options.outputFormat?.schema;
  const outputCheck = schema !== undefined ? await createOutputCheck(schema) : undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const servers: ConnectedSdkServer[] = [];
  let runtime: Runtime | undefined;
  const abortSignal = options.abortController?.signal;
  const callbackAbort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const halt = (why: "aborted" | "timedOut") => {
    if (why === "aborted") stop.aborted = true;
    else stop.timedOut = true;
    callbackAbort.abort();
    void runtime?.interrupt();
  };
  const onAbort = () => halt("aborted");
  stop.cancel = onAbort;
  if (abortSignal?.aborted) onAbort();
  abortSignal?.addEventListener("abort", onAbort, { once: true });
  if (options.maxDurationMs !== undefined) timer = setTimeout(() => halt("timedOut"), options.maxDurationMs);
  const startedAt = performance.now();
  try {
    const tools: RegisteredTool[] = [];
    const external: Record<string, ManagerServerConfig> = {};
    for (const [name, config] of Object.entries(options.mcpServers ?? {})) {
      if (config.type === "sdk") {
        const server = await connectSdkServer(name, config);
        servers.push(server);
        tools.push(...server.tools);
      } else external[name] = config as ManagerServerConfig;
    }
    const temporary = await sessionStore(options, cleanups);
    const resume = await resumeTarget(options, home, projectDir, temporary);
    const runtimeOptions: RuntimeOptions = {
      projectDir,
      ui: permissionUi(options.canUseTool, callbackAbort.signal, {
        setMode: (mode) => runtime?.setMode(mode),
        warn: (message) =>
          push({
            type: "system",
            subtype: "warning",
            message,
            session_id: runtime?.session.id ?? "",
            uuid: randomUUID(),
          }),
      }),
      headless: true,
      env,
      home,
      settings: await loadChosenSettings(options, home, projectDir, env),
      ...(options.provider !== undefined && { provider: options.provider }),
      ...(options.model !== undefined && { model: options.model }),
      ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      ...(options.client !== undefined && { client: options.client }),
      ...(options.permissionMode !== undefined && {
        mode: toPermissionMode(options.permissionMode) as PermissionMode,
      }),
      ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
      ...(options.allowedTools !== undefined && { allowedTools: options.allowedTools }),
      ...(options.disallowedTools !== undefined && { disallowedTools: options.disallowedTools }),
      ...(options.additionalDirectories !== undefined && {
        additionalDirectories: options.additionalDirectories.map((d) => resolve(projectDir, d)),
      }),
      ...systemPromptOptions(options, outputCheck),
      ...(resume !== undefined && { resume }),
      ...(options.continue === true && resume === undefined && { continueLatest: true }),
      ...(temporary !== undefined && { store: temporary.store }),
      ...(Object.keys(external).length > 0 && { mcp: { servers: external } }),
      hookCallbacks: hookGroups(options.hooks),
      subagentTypes: subagentTypes(options.agents),
      tools,
    };
    try {
      runtime = await createRuntime(runtimeOptions);
    } catch (error) {
      if (error instanceof ConfigurationError || error instanceof SettingsError)
        throw new QueryStartError(error.message, error);
      throw error;
    }
    started(runtime);
    if (stop.aborted || stop.timedOut) await runtime.interrupt();
    await runMessages(runtime, prompt, options, push, stop, outputCheck, startedAt);
  } finally {
    clearTimeout(timer);
    abortSignal?.removeEventListener("abort", onAbort);
    callbackAbort.abort();
    await runtime?.close().catch(() => {});
    for (const server of servers) await server.close();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

/** Submits each user message and pushes its messages and result. */
async function runMessages(
  runtime: Runtime,
  prompt: string | AsyncIterable<SDKUserMessageInput>,
  options: QueryOptions,
  push: (message: SDKMessage) => void,
  stop: StopState,
  outputCheck: OutputCheck | undefined,
  queryStart: number,
): Promise<void> {
  const stream = createClaudeStream({
    init: () => ({
      cwd: runtime.projectDir,
      tools: runtime.session.profile.toolRegistry.names(),
      model: runtime.model,
      provider: runtime.provider,
      permissionMode: runtime.mode,
      version: "query",
      mcpServers: (runtime.mcp?.servers() ?? []).map((s) => ({ name: s.name, status: s.status })),
    }),
    emit: (line) => {
      if (line.type !== "attractor_event") push(line);
    },
  });
  let tracker = createRunTracker();
  let mainSession: string | undefined;
  const partial = (event: SDKPartialAssistantMessage["event"]) =>
    push({
      type: "stream_event",
      event,
      parent_tool_use_id: null,
      uuid: randomUUID(),
      session_id: runtime.session.id,
    });
  const unsubscribe = runtime.subscribe((update) => {
    const item = updateItem(update);
    tracker.onEvent(item);
    if (options.includePartialMessages && update.source === "session") partialOf(update.event);
    stream.onEvent(item);
  });
  const partialOf = (event: SessionEvent) => {
    if (event.kind === "session_start") mainSession ??= event.sessionId;
    if (event.sessionId !== mainSession) return;
    if (event.kind === "assistant_text_start") partial({ type: "message_start" });
    else if (event.kind === "assistant_text_delta")
      partial({
        type: "content_block_delta",
        index: 0,
        delta:
          event.data.channel === "reasoning"
            ? { type: "thinking_delta", thinking: event.data.delta }
            : { type: "text_delta", text: event.data.delta },
      });
    else if (event.kind === "assistant_text_end") partial({ type: "message_stop" });
  };
  const halted = () => stop.aborted || stop.timedOut;
  try {
    await runtime.mcp?.ready();
    let startedAt = queryStart;
    let first = true;
    for await (const text of userTexts(prompt)) {
      // A query stopped before its first message still ends with a result saying why.
      if (halted() && !first) break;
      first = false;
      stop.interrupted = false;
      let failed: unknown;
      try {
        if (!halted()) await runtime.submit(text);
      } catch (error) {
        failed = error;
        tracker.fail(error);
      }
      let check: { ok: true; value: unknown } | { ok: false; problem: string } | undefined;
      let tries = 0;
      while (outputCheck !== undefined && failed === undefined && !halted() && !stop.interrupted) {
        if (tracker.reason !== "completed" && tracker.reason !== "awaiting_input") break;
        check = outputCheck.check(lastAnswer(tracker));
        if (check.ok || tries >= OUTPUT_RETRIES) break;
        tries++;
        try {
          await runtime.submit(outputCheck.fixRequest(check.problem));
        } catch (error) {
          failed = error;
          tracker.fail(error);
        }
      }
      stream.flush();
      const base = tracker.result({
        sessionId: runtime.session.id,
        provider: runtime.provider,
        model: runtime.model,
        cost: runtime.cost(),
        durationMs: performance.now() - startedAt,
        interrupted: stop.aborted || stop.timedOut || stop.interrupted,
      });
      push(finalResult(base, { stop, check, outputCheck: outputCheck !== undefined, options }));
      tracker = createRunTracker();
      startedAt = performance.now();
    }
    // A run never ends while a subagent it started in the background still works.
    for (;;) {
      const running = runtime.session.subagents.list().filter((c) => c.status === "running");
      if (running.length === 0 || halted()) break;
      await Promise.all(running.map((c) => runtime.session.subagents.wait(c.id).catch(() => undefined)));
    }
  } finally {
    unsubscribe();
  }
}

/** The last answer's text, as the tracker gives it in its result. */
function lastAnswer(tracker: ReturnType<typeof createRunTracker>): string {
  return tracker.result({
    sessionId: "",
    provider: "",
    model: "",
    cost: {
      inputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      totalTokens: 0,
      costUsd: 0,
    },
    durationMs: 0,
    interrupted: false,
  }).result;
}

/** The headless result with the query's own outcomes (time limit, output schema) and `errors`. */
function finalResult(
  base: ReturnType<ReturnType<typeof createRunTracker>["result"]>,
  context: {
    stop: StopState;
    check: { ok: true; value: unknown } | { ok: false; problem: string } | undefined;
    outputCheck: boolean;
    options: QueryOptions;
  },
): SDKResultMessage {
  const { stop, check } = context;
  if (stop.timedOut)
    return {
      ...base,
      subtype: "error_during_execution",
      is_error: true,
      exit_reason: "time_limit",
      errors: [
        `the query ran longer than maxDurationMs (${context.options.maxDurationMs} ms) and was stopped`,
      ],
    };
  if (stop.aborted) return { ...base, errors: ["the query was aborted through its abortController"] };
  if (base.subtype === "success" && context.outputCheck) {
    if (check?.ok) return { ...base, structured_output: check.value, errors: [] };
    return {
      ...base,
      subtype: "error_max_structured_output_retries",
      is_error: true,
      exit_reason: "invalid_output",
      errors: [
        `the final answer is not JSON valid against the output schema after ${OUTPUT_RETRIES} requests to fix it: ${check && !check.ok ? check.problem : "no answer"}`,
      ],
    };
  }
  const errors =
    base.subtype === "success"
      ? []
      : base.error !== undefined
        ? [base.error.message]
        : base.subtype === "error_max_turns"
          ? [`the model used the ${context.options.maxTurns} turns maxTurns allows`]
          : stop.interrupted
            ? ["the query was interrupted"]
            : [`the run ended: ${base.exit_reason}`];
  return { ...base, errors };
}

/** Each user message's text: the prompt, or each message of streaming input. */
async function* userTexts(prompt: string | AsyncIterable<SDKUserMessageInput>): AsyncGenerator<string> {
  if (typeof prompt === "string") {
    yield prompt;
    return;
  }
  for await (const message of prompt) yield userText(message);
}

/** A streamed user message's text; other content is refused by name rather than dropped. */
function userText(message: SDKUserMessageInput): string {
  if (message?.type !== "user" || typeof message.message !== "object" || message.message === null)
    throw new QueryOptionError(
      "prompt",
      'each streamed message must be { type: "user", message: { role: "user", content } }',
    );
  const content = message.message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw new QueryOptionError("prompt", "a user message's content must be a string or an array of blocks");
  const texts: string[] = [];
  for (const block of content) {
    if (block.type !== "text" || typeof block.text !== "string")
      throw new QueryOptionError(
        "prompt",
        `content blocks of type "${block.type}" are not supported; send text`,
      );
    texts.push(block.text);
  }
  return texts.join("\n\n");
}

const MODES: readonly string[] = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "normal",
  "auto-edit",
  "yolo",
];

/** Rejects options query() cannot run with, naming the option. */
function checkOptions(options: QueryOptions, prompt: unknown): void {
  if (
    typeof prompt !== "string" &&
    !(typeof prompt === "object" && prompt !== null && Symbol.asyncIterator in prompt)
  )
    throw new QueryOptionError("prompt", "must be a string or an AsyncIterable of user messages");
  if (options.permissionMode !== undefined && !MODES.includes(options.permissionMode))
    throw new QueryOptionError(
      "permissionMode",
      `unknown mode ${JSON.stringify(options.permissionMode)} (one of ${MODES.join(", ")})`,
    );
  const { maxTurns, maxDurationMs } = options;
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 0))
    throw new QueryOptionError(
      "maxTurns",
      `must be a whole number ≥ 0 (0: no limit), got ${JSON.stringify(maxTurns)}`,
    );
  if (maxDurationMs !== undefined && (!Number.isInteger(maxDurationMs) || maxDurationMs <= 0))
    throw new QueryOptionError(
      "maxDurationMs",
      `must be a whole number of milliseconds > 0, got ${JSON.stringify(maxDurationMs)}`,
    );
  if (options.forkSession && options.resume === undefined)
    throw new QueryOptionError("forkSession", "needs resume: the session to fork");
  if (options.outputSchema !== undefined && options.outputFormat !== undefined)
    throw new QueryOptionError("outputFormat", "give outputSchema or outputFormat, not both");
  if (options.outputFormat !== undefined && options.outputFormat.type !== "json_schema")
    throw new QueryOptionError("outputFormat", 'only { type: "json_schema", schema } is supported');
  for (const source of options.settingSources ?? [])
    if (!["user", "project", "local"].includes(source))
      throw new QueryOptionError(
        "settingSources",
        `unknown source ${JSON.stringify(source)} (user, project, local)`,
      );
  for (const event of Object.keys(options.hooks ?? {}))
    if (!(HOOK_EVENTS as readonly string[]).includes(event))
      throw new QueryOptionError(
        "hooks",
        `unknown event ${JSON.stringify(event)} (${HOOK_EVENTS.join(", ")})`,
      );
  for (const [name, agent] of Object.entries(options.agents ?? {}))
    if (typeof agent?.description !== "string" || typeof agent.prompt !== "string")
      throw new QueryOptionError("agents", `the agent "${name}" needs a description and a prompt`);
  for (const [name, server] of Object.entries(options.mcpServers ?? {})) {
    const valid =
      server?.type === "sdk"
        ? "instance" in server || "tools" in server
        : server?.type === "http" || server?.type === "sse"
          ? typeof server.url === "string"
          : typeof (server as { command?: unknown })?.command === "string";
    if (!valid)
      throw new QueryOptionError(
        "mcpServers",
        `the server "${name}" needs a command (stdio), a url (http, sse) or an in-process server (sdk)`,
      );
  }
}

/** The settings files the options name (none by default); files the caller lists are trusted. */
async function loadChosenSettings(
  options: QueryOptions,
  home: string,
  projectDir: string,
  env: Readonly<Record<string, string | undefined>>,
) {
  const sources = options.settingSources ?? [];
  try {
    return await loadSettings({
      home,
      projectDir,
      claudeDir: sources.includes("user") ? claudeUserDir(env) : null,
      claudeSources: sources,
      ownSources: sources.filter((s): s is "user" | "project" => s !== "local"),
      managedSettingsFile: null,
      trust: async () => true,
    });
  } catch (error) {
    if (error instanceof SettingsError) throw new QueryStartError(error.message, error);
    throw error;
  }
}

/** The system prompt options; the output schema's instructions are appended. */
function systemPromptOptions(
  options: QueryOptions,
  outputCheck: OutputCheck | undefined,
): Pick<RuntimeOptions, "systemPrompt" | "appendSystemPrompt"> {
  const given = options.systemPrompt;
  const extra = outputCheck !== undefined ? outputInstructions(outputCheck.schema) : undefined;
  const join = (...parts: (string | undefined)[]) => {
    const text = parts.filter((p) => p !== undefined && p !== "").join("\n\n");
    return text === "" ? undefined : text;
  };
  let systemPrompt: string | undefined;
  let append: string | undefined;
  if (typeof given === "string") systemPrompt = given;
  else if (Array.isArray(given)) systemPrompt = given.join("\n\n");
  else if (given !== undefined) append = (given as { append?: string }).append;
  const appendSystemPrompt = join(append, extra);
  return {
    ...(systemPrompt !== undefined && { systemPrompt }),
    ...(appendSystemPrompt !== undefined && { appendSystemPrompt }),
  };
}

/** The hooks option as the runtime's function hooks. */
function hookGroups(hooks: QueryOptions["hooks"]): HookFunctionGroup[] {
  const groups: HookFunctionGroup[] = [];
  const entries = Object.entries(hooks ?? {}) as [
    HookEventName,
    readonly HookCallbackMatcher[] | undefined,
  ][];
  for (const [event, matchers] of entries) {
    for (const m of matchers ?? [])
      groups.push({
        event,
        hooks: m.hooks as HookFunctionGroup["hooks"],
        ...(m.matcher !== undefined && { matcher: m.matcher }),
        ...(m.timeout !== undefined && { timeout: m.timeout }),
      });
  }
  return groups;
}

/** The agents option as subagent types. */
function subagentTypes(agents: QueryOptions["agents"]): SubagentType[] {
  return Object.entries(agents ?? {}).map(([name, a]) => ({
    name,
    description: a.description,
    prompt: a.prompt,
    ...(a.tools !== undefined && { tools: a.tools }),
    ...(a.model !== undefined && { model: a.model }),
    file: "query() agents option",
  }));
}

/** Where the session is stored: the home's store, or a temporary one removed afterwards. */
async function sessionStore(
  options: QueryOptions,
  cleanups: (() => Promise<void>)[],
): Promise<{ readonly store: SessionStore; readonly home: string } | undefined> {
  if (options.persistSession !== false) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "attractor-query-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { store: createSessionStore({ home: dir, durable: false }), home: dir };
}

/** The stored session to resume: the one named, or its copy (forkSession, persistSession false). */
async function resumeTarget(
  options: QueryOptions,
  home: string,
  projectDir: string,
  temporary: { readonly home: string } | undefined,
): Promise<string | undefined> {
  if (options.resume === undefined) return undefined;
  if (!options.forkSession && temporary === undefined) return options.resume;
  const from = createSessionStore({ home, durable: false });
  try {
    return await copyStoredSession(from, temporary?.home ?? home, projectDir, options.resume);
  } catch (error) {
    throw new QueryOptionError("resume", error instanceof Error ? error.message : String(error));
  }
}

/** The RuntimeUi of a query: permission prompts go to canUseTool; nobody answers questions. */
function permissionUi(
  canUseTool: CanUseTool | undefined,
  signal: AbortSignal,
  host: PermissionHost,
): RuntimeUi {
  return {
    askPermission: async (request) => (canUseTool ? decide(canUseTool, request, signal, host) : "deny"),
    answersPermissions: canUseTool !== undefined,
    askUser: async () =>
      "No user is present: this is a non-interactive run. Make a reasonable assumption and continue.",
  };
}

/** Asks canUseTool, in Claude Code's names; no answer or a throw denies. */
/** What a permission callback's answer may change beyond the call: the mode; and where warnings go. */
interface PermissionHost {
  readonly setMode: (mode: PermissionMode) => void;
  readonly warn: (message: string) => void;
}

async function decide(
  canUseTool: CanUseTool,
  request: PermissionRequest,
  signal: AbortSignal,
  host: PermissionHost,
): Promise<PermissionAnswer> {
  const ours = request.call.toolName;
  const name = claudeCodeNamesOf(ours)[0] ?? ours;
  try {
    const result = await canUseTool(name, withClaudeCodeFields(ours, request.call.arguments), {
      signal,
      suggestions: permissionSuggestions(request),
      toolUseID: request.call.callId,
      reason: request.reason,
      attractorToolName: ours,
    });
    return readPermissionResult(result, request.call, host);
  } catch (error) {
    return {
      answer: "deny",
      message: `the permission callback failed (${error instanceof Error ? error.message : String(error)}).`,
    };
  }
}
