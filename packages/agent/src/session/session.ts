import { randomUUID } from "node:crypto";
import {
  abortableSleep,
  addUsage,
  backoffDelay,
  ContextLengthError,
  DEFAULT_RETRY_POLICY,
  EMPTY_USAGE,
  type ImageData,
  isRetryable,
  type ReasoningEffort,
  type Request,
  type Response,
  type RetryPolicy,
  type StreamEvent,
  type ToolCallData,
  type ToolDefinition,
  userMessage,
} from "@attractor/llm";
import { type CompactionReason, type CompactionResult, Compactor } from "../compaction/compactor.js";
import { formatSkillsSection } from "../customization/skills.js";
import { describeSubagentTypes, type SubagentType } from "../customization/subagent-types.js";
import { modeInstructions } from "../modes/prompts.js";
import { maxToolRoundsFor, offeredInMode, refusalInMode } from "../modes/read-only.js";
import { withTools } from "../profiles/with-tools.js";
import { modelMessages, readThroughProtocol, toolOffer } from "../prompted/tool-calling.js";
import { onlyUnreadableCalls, UNREADABLE_TWICE_MESSAGE, unreadableToolCall } from "../prompted/unreadable.js";
import { SubagentManager } from "../subagent/manager.js";
import { BackgroundProcesses } from "../tools/processes/background-processes.js";
import type { BackgroundProcessTable } from "../types/background-process.js";
import { DEFAULT_SESSION_CONFIG, type SessionConfig } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { EventDataMap, EventKind, SessionEvent, UsageTotals } from "../types/events.js";
import type { HookEventName, SessionStartSource, StopDecision } from "../types/hooks.js";
import type { ProviderProfile } from "../types/profile.js";
import { SessionState } from "../types/session.js";
import type { AnyTool } from "../types/tool.js";
import type { Turn } from "../types/turn.js";
import { readAssistantStream, responseToTurn } from "./assistant-stream.js";
import { ContextTracker, contextWarning } from "./context-usage.js";
import { CycleControl } from "./cycle-control.js";
import { EventStream } from "./event-stream.js";
import { CONTINUE_NOTE, classifyFinish, MALFORMED_CALL_NOTE } from "./finish-reason.js";
import { runGuardedToolRound } from "./guarded-round.js";
import { DEFAULT_MAX_LOOP_DETECTIONS, LoopDetector, loopStopMessage, loopWarning } from "./loop-detection.js";
import { retryingOpenStream } from "./model-stream.js";
import { decideOnProviderError, describeError } from "./provider-errors.js";
import { searchesAndCitations, splitProviderTools } from "./provider-tools.js";
import { MessageQueue } from "./steering.js";
import { type PromptContext, preparePromptContext } from "./system-context.js";
import { createSystemPromptMemo } from "./system-prompt-memo.js";

/** The part of the llm Client a session uses. */
export interface ModelClient {
  stream(request: Request): AsyncIterable<StreamEvent>;
}

/** Everything a Session is made from. */
export interface SessionOptions {
  readonly profile: ProviderProfile;
  readonly environment: ExecutionEnvironment;
  readonly client: ModelClient;
  readonly config?: Partial<SessionConfig>;
  /** Turns to start from (a stored session being resumed). */
  readonly history?: readonly Turn[];
  readonly id?: string;
  /** Nesting level: 0 for a top-level session. */
  readonly depth?: number;
  /**
   * Opens the model stream; by default the llm layer's streamWithRetry over `client`, so
   * transient failures before the first event are retried (see `retry`).
   */
  readonly openStream?: (client: ModelClient, request: Request) => AsyncIterable<StreamEvent>;
  /**
   * Retries for opening the model stream when openStream is not given (default: the llm layer's
   * policy, 2 retries with backoff); `{ maxRetries: 0 }` turns retrying off.
   */
  readonly retry?: RetryPolicy;
  /**
   * Awaited before each model request, so tools that arrive in the background (MCP servers
   * connecting: McpManager.waitForStartup) can be offered; it decides itself how long it waits.
   */
  readonly toolsReady?: (signal: AbortSignal) => Promise<void>;
  /**
   * Read before each model request: instructions that come with the tools (MCP servers'
   * `instructions`: McpManager.instructions), put in their own system-prompt section.
   */
  readonly toolInstructions?: () => string | undefined;
  /** What the sessionStart hook is told (default: "resume" with history, else "startup"). */
  readonly startSource?: SessionStartSource;
  /**
   * Tools added to the profile's for this session (RegisteredTool, defineTool() or an llm
   * `tool()` with execute); a name the profile has replaces its tool. The profile itself is not
   * changed. A bad tool object throws ToolDefinitionError here.
   */
  readonly tools?: readonly AnyTool[];
}

/** How many times in a row stop hooks may send the model back to work on one input. */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;

/** Input for submit(): text, or text with images. */
export type SessionInput = string | { readonly text: string; readonly images?: readonly ImageData[] };

/** Thrown by continue() when the model owes no answer: the last turn is already its reply. */
export class NothingToContinueError extends Error {
  override readonly name = "NothingToContinueError";
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} has no unanswered turn to continue`);
  }
}

/** How many times an answer cut at the output limit is continued within one input. */
const MAX_CONTINUATIONS = 2;

/** How many paused turns in a row are sent back before the input ends with an error. */
const MAX_PAUSES = 8;

/** Thrown by submit() on a closed session. */
export class SessionClosedError extends Error {
  override readonly name = "SessionClosedError";
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} is closed`);
  }
}

type CycleEnd = EventDataMap["processing_end"]["reason"];

/** One input a cycle processes; undefined input means "answer the history as it is" (continue()). */
interface CycleInput {
  readonly text: string;
  readonly images?: readonly ImageData[] | undefined;
  readonly followUp: boolean;
}

/**
 * A conversation between a model and its tools, driven by a host: submit input, watch events,
 * steer while it works, change the model or reasoning effort between calls, stop it.
 */
export class Session {
  readonly id: string;
  readonly depth: number;
  readonly environment: ExecutionEnvironment;
  readonly subagents: SubagentManager;
  /** Commands this session runs in the background; all are stopped when it ends. */
  readonly processes: BackgroundProcessTable = new BackgroundProcesses();
  private profileValue: ProviderProfile;
  private configValue: SessionConfig;
  private readonly client: ModelClient;
  private readonly openStream: (client: ModelClient, request: Request) => AsyncIterable<StreamEvent>;
  private readonly customOpenStream: boolean;
  private readonly retryPolicy: RetryPolicy;
  private readonly toolsReady: ((signal: AbortSignal) => Promise<void>) | undefined;
  private readonly toolInstructions: (() => string | undefined) | undefined;
  private readonly turns: Turn[];
  private readonly restoredTurns: number;
  private readonly stream = new EventStream<SessionEvent>();
  private readonly steering = new MessageQueue();
  private readonly followUps = new MessageQueue();
  private stateValue: SessionState = SessionState.IDLE;
  private usageTotals: UsageTotals = EMPTY_USAGE;
  /** Provider-run tools already reported as not offered. */
  private readonly unavailableNoted = new Set<string>();
  private started = false;
  private cycle: Promise<void> | undefined;
  private readonly control = new CycleControl();
  private shutdown: Promise<void> | undefined;
  private promptContext: Promise<PromptContext> | undefined;
  private readonly systemPrompt = createSystemPromptMemo();
  private loopDetector: LoopDetector;
  private contextTracker: ContextTracker;
  private readonly compactor = new Compactor();
  private readonly startSource: SessionStartSource;
  private startHookRan = false;

  constructor(options: SessionOptions) {
    this.id = options.id ?? randomUUID();
    this.depth = options.depth ?? 0;
    this.profileValue =
      options.tools && options.tools.length > 0 ? withTools(options.profile, options.tools) : options.profile;
    this.environment = options.environment;
    this.client = options.client;
    this.retryPolicy = options.retry ?? {};
    this.customOpenStream = options.openStream !== undefined;
    // Retries of the connection become RETRY events; the host's own onRetry still runs.
    this.openStream =
      options.openStream ??
      retryingOpenStream({
        ...this.retryPolicy,
        onRetry: (error, attempt, delayMs) => {
          this.retryPolicy.onRetry?.(error, attempt, delayMs);
          this.emitRetry(error, attempt, delayMs, false);
        },
      });
    this.toolsReady = options.toolsReady;
    this.toolInstructions = options.toolInstructions;
    this.configValue = { ...DEFAULT_SESSION_CONFIG, ...options.config };
    this.turns = [...(options.history ?? [])];
    this.restoredTurns = this.turns.length;
    this.startSource = options.startSource ?? (this.turns.length > 0 ? "resume" : "startup");
    for (const t of this.turns) {
      if (t.kind === "assistant") this.usageTotals = addUsage(this.usageTotals, t.usage);
    }
    this.loopDetector = new LoopDetector(this.configValue.loopDetectionWindow);
    this.contextTracker = new ContextTracker(
      this.profileValue.contextWindowSize,
      this.configValue.contextWarningThreshold,
    );
    this.subagents = new SubagentManager(this, (data) => this.emit("subagent_event", data));
    this.subagents.setChildFactory(
      (child) =>
        new Session({
          ...child,
          client: this.client,
          // Children share the registry, so the MCP tools, and with them their servers' notes.
          ...(this.toolInstructions !== undefined && { toolInstructions: this.toolInstructions }),
          // A child reports its own retries; only a host's own openStream is shared as it is.
          ...(this.customOpenStream ? { openStream: this.openStream } : { retry: this.retryPolicy }),
        }),
    );
  }

  /** A Session that continues from stored history (turns as previously read from `history`). */
  static fromHistory(options: SessionOptions & { readonly history: readonly Turn[] }): Session {
    return new Session(options);
  }

  get state(): SessionState {
    return this.stateValue;
  }

  get profile(): ProviderProfile {
    return this.profileValue;
  }

  get config(): SessionConfig {
    return this.configValue;
  }

  get model(): string {
    return this.profileValue.model;
  }

  /** The history so far; plain data, safe to serialise. */
  get history(): readonly Turn[] {
    return this.turns;
  }

  /** Token usage summed over every model response of this session. */
  get usage(): UsageTotals {
    return this.usageTotals;
  }

  /** Model responses so far (what maxTurns counts). */
  get turnCount(): number {
    let n = 0;
    for (const t of this.turns) {
      if (t.kind === "assistant") n++;
      else if (t.kind === "summary") n += t.replacedResponses;
    }
    return n;
  }

  /** Events from now on; several consumers may iterate at once. Ends after SESSION_END. */
  events(): AsyncIterableIterator<SessionEvent> {
    return this.stream.iterate();
  }

  /** Calls listener synchronously for each later event; returns the unsubscribe function. */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.stream.subscribe(listener);
  }

  /** Uses another model from the next call on (same provider and tools). */
  setModel(model: string): void {
    if (model !== this.profileValue.model) {
      this.profileValue = this.profileValue.withModel(model);
      this.contextTracker = new ContextTracker(
        this.profileValue.contextWindowSize,
        this.configValue.contextWarningThreshold,
      );
    }
  }

  /** Changes reasoning effort from the next call on; undefined = provider default. */
  setReasoningEffort(effort: ReasoningEffort | undefined): void {
    const { reasoningEffort: _drop, ...rest } = this.configValue;
    this.configValue = effort === undefined ? rest : { ...rest, reasoningEffort: effort };
  }

  /** Changes configuration from the next call on. */
  updateConfig(patch: Partial<SessionConfig>): void {
    this.configValue = { ...this.configValue, ...patch };
    if (patch.loopDetectionWindow !== undefined)
      this.loopDetector = new LoopDetector(patch.loopDetectionWindow);
  }

  /**
   * Runs the loop on this input until the model answers without tool calls, a limit is hit, or
   * the session stops; then runs queued follow-ups. While busy, the input is queued as a follow-up
   * and the returned promise settles with the running cycle. Never rejects for model or tool
   * failures (they become events); rejects with SessionClosedError on a closed session.
   */
  submit(input: SessionInput): Promise<void> {
    if (this.stateValue === SessionState.CLOSED || this.shutdown) {
      return Promise.reject(new SessionClosedError(this.id));
    }
    const { text, images } = typeof input === "string" ? { text: input, images: undefined } : input;
    if (this.cycle) {
      this.followUps.push(text);
      return this.settled(this.cycle);
    }
    this.ensureStarted();
    this.cycle = this.runCycle({ text, images, followUp: false }).finally(() => {
      this.cycle = undefined;
    });
    return this.settled(this.cycle);
  }

  /**
   * The cycle, then the shutdown when one began meanwhile (abort() or close() mid-cycle, a fatal
   * error): callers resume only once `state` is final (IDLE, AWAITING_INPUT or CLOSED).
   */
  private async settled(cycle: Promise<void>): Promise<void> {
    await cycle;
    if (this.shutdown) await this.shutdown;
  }

  /**
   * Asks the model again for the turn it still owes, without a new user message: after a
   * non-fatal error ended a cycle (a provider still failing after its retries, a stream cut
   * mid-answer, a refusal), the host retries the same turn. Settles like submit(); rejects with
   * NothingToContinueError when the last turn is already the model's finished answer, and with
   * SessionClosedError on a closed session. While a cycle runs, resolves when it ends.
   */
  continue(): Promise<void> {
    if (this.stateValue === SessionState.CLOSED || this.shutdown) {
      return Promise.reject(new SessionClosedError(this.id));
    }
    if (this.cycle) return this.settled(this.cycle);
    const last = this.turns.at(-1);
    if (last === undefined || (last.kind === "assistant" && last.toolCalls.length === 0)) {
      return Promise.reject(new NothingToContinueError(this.id));
    }
    this.ensureStarted();
    this.cycle = this.runCycle(undefined).finally(() => {
      this.cycle = undefined;
    });
    return this.settled(this.cycle);
  }

  /** Same as continue(): retries the turn a non-fatal error ended. */
  retry(): Promise<void> {
    return this.continue();
  }

  /** Queues a message injected after the current tool round (or before the next call when idle). */
  steer(message: string): void {
    if (this.stateValue !== SessionState.CLOSED) this.steering.push(message);
  }

  /**
   * Removes and returns the steering messages not injected yet, oldest first: a host whose cycle
   * ended before the next tool round can send them as input instead of holding them.
   */
  takeSteering(): string[] {
    return this.steering.drain();
  }

  /** Queues an input processed after the current one completes. */
  followUp(message: string): void {
    if (this.stateValue === SessionState.CLOSED) return;
    if (!this.cycle && !this.shutdown) {
      void this.submit(message);
      return;
    }
    this.followUps.push(message);
  }

  /** Stops everything: cancels the model stream, kills running commands, closes subagents, CLOSED. */
  abort(): Promise<void> {
    return this.stop("aborted");
  }

  /** Ends the session; a running cycle is aborted first. */
  close(): Promise<void> {
    return this.stop(this.cycle ? "aborted" : "closed");
  }

  /**
   * Stops the running cycle and returns the session to IDLE, still usable: cancels the model
   * stream, kills running commands, interrupts subagents' current work and drops queued
   * follow-ups. Tool calls cut short get error results, so the history stays valid for the next
   * call. PROCESSING_END reports reason "aborted". Resolves once the cycle has ended; a no-op
   * when nothing is running.
   */
  async interrupt(): Promise<void> {
    const cycle = this.cycle;
    if (!cycle || this.shutdown || !this.control.interrupt()) {
      await cycle;
      return;
    }
    await Promise.all([cycle, this.subagents.interruptAll()]);
  }

  /**
   * Tells the notification hook that the user's attention is needed (a permission prompt, a
   * question); resolves when the hook has run. Never rejects.
   */
  async notify(message: string): Promise<void> {
    const hook = this.configValue.hooks?.notification;
    await this.hook("Notification", hook && (() => hook({ message })));
  }

  /** Resolves when the current cycle (if any) has finished. */
  async idle(): Promise<void> {
    if (this.cycle) await this.settled(this.cycle);
  }

  /**
   * Compacts the history now: prunes old tool outputs and summarises the older turns, `focus`
   * saying what the summary should keep above all. Waits for a running cycle first; inputs
   * submitted meanwhile run afterwards. COMPACTION_START / COMPACTION_END report it; a summary
   * that fails leaves the history as pruning left it, with a WARNING.
   */
  async compact(focus?: string): Promise<void> {
    while (this.cycle) await this.cycle;
    if (this.stateValue === SessionState.CLOSED || this.shutdown) throw new SessionClosedError(this.id);
    this.ensureStarted();
    const run = async () => {
      const result = await this.compactHistory("manual", await this.buildRequest(this.control.signal), focus);
      if (result.error !== undefined && !this.control.signal.aborted) {
        const message = result.error instanceof Error ? result.error.message : String(result.error);
        this.emit("warning", { code: "compaction", message: `Could not summarise the history: ${message}` });
      }
    };
    this.cycle = run().finally(() => {
      this.cycle = undefined;
      const next = this.followUps.shift();
      if (next !== undefined && !this.shutdown) void this.submit(next);
    });
    await this.cycle;
  }

  private emit<K extends EventKind>(kind: K, data: EventDataMap[K]): void {
    this.stream.emit({ kind, timestamp: new Date().toISOString(), sessionId: this.id, data } as SessionEvent);
  }

  private ensureStarted(): void {
    if (this.started) return;
    this.started = true;
    this.emit("session_start", {
      state: this.stateValue,
      provider: this.profileValue.provider,
      model: this.profileValue.model,
      workingDirectory: this.environment.workingDirectory(),
      depth: this.depth,
      restoredTurns: this.restoredTurns,
    });
  }

  private stop(reason: "aborted" | "closed" | "error", fromCycle = false): Promise<void> {
    this.shutdown ??= this.shutDown(reason, fromCycle);
    return this.shutdown;
  }

  // The spec's order: cancel the stream, kill processes (both via the abort signal, which the
  // environment turns into SIGTERM, 2 s, SIGKILL), close subagents, flush events, SESSION_END, CLOSED.
  private async shutDown(reason: "aborted" | "closed" | "error", fromCycle: boolean): Promise<void> {
    this.ensureStarted();
    this.control.shutdown();
    if (!fromCycle) {
      try {
        await this.cycle;
      } catch {
        // The cycle reports its own failures as events.
      }
    }
    await Promise.all([this.subagents.closeAll(), this.processes.stopAll()]);
    const endHook = this.configValue.hooks?.sessionEnd;
    await this.hook("SessionEnd", endHook && (() => endHook({ reason })));
    this.stateValue = SessionState.CLOSED;
    this.emit("session_end", {
      state: SessionState.CLOSED,
      reason,
      usage: this.usageTotals,
      turns: this.turnCount,
    });
    this.stream.close();
  }

  private async runCycle(first: CycleInput | undefined): Promise<void> {
    const signal = this.control.begin();
    this.stateValue = SessionState.PROCESSING;
    let rounds = 0;
    let end: CycleEnd = "completed";
    let next: CycleInput | undefined = first;
    let resume = first === undefined;
    while (next || resume) {
      const outcome = resume ? await this.answerHistory() : await this.processInput(next!);
      resume = false;
      rounds += outcome.rounds;
      end = outcome.end;
      if (end === "aborted" || end === "error" || signal.aborted) break;
      const queued = this.followUps.shift();
      next = queued === undefined ? undefined : { text: queued, followUp: true };
    }
    const closing = this.fatal || this.control.closing;
    if (signal.aborted && end !== "error") end = "aborted";
    // An interrupted cycle drops the inputs queued behind it.
    if (this.control.interrupted) this.followUps.drain();
    this.control.end();
    const finalState = closing
      ? SessionState.CLOSED
      : end === "awaiting_input"
        ? SessionState.AWAITING_INPUT
        : SessionState.IDLE;
    if (!closing) this.stateValue = finalState;
    this.emit("processing_end", {
      state: finalState,
      reason: end,
      toolRounds: rounds,
      usage: this.usageTotals,
    });
    // An unrecoverable error shuts the session down once this cycle has reported its end.
    if (this.fatal) await this.stop("error", true);
  }

  private fatal = false;

  private async processInput(input: CycleInput): Promise<{ end: CycleEnd; rounds: number }> {
    const { text, images, followUp } = input;
    const hooks = this.configValue.hooks;
    const startContext = await this.runStartHook();
    const submitHook = hooks?.userPromptSubmit;
    const prompt = await this.hook("UserPromptSubmit", submitHook && (() => submitHook({ prompt: text })));
    if (prompt?.halt !== undefined) this.halt(prompt.halt);
    // Interrupted before the hooks had vetted it: the input is not sent (a hook may have been
    // about to block it).
    if (this.control.signal.aborted && submitHook) {
      this.emit("warning", {
        code: "hook",
        message: "The input was not sent: interrupted while the UserPromptSubmit hook ran.",
      });
      return { end: "aborted", rounds: 0 };
    }
    if (prompt?.action === "block") {
      this.emit("warning", {
        code: "hook",
        message: `A UserPromptSubmit hook blocked the input: ${prompt.reason}`,
      });
      return { end: "completed", rounds: 0 };
    }
    this.turns.push({
      kind: "user",
      content: text,
      ...(images && images.length > 0 && { images }),
      timestamp: new Date().toISOString(),
    });
    this.emit("user_input", { content: text, followUp });
    if (startContext) this.injectHookMessage(startContext);
    if (prompt?.action === "allow" && prompt.additionalContext?.trim()) {
      this.injectHookMessage(prompt.additionalContext);
    }
    return this.answerHistory();
  }

  /** The loop proper: model calls and tool rounds until the model answers (continue() starts here). */
  private async answerHistory(): Promise<{ end: CycleEnd; rounds: number }> {
    this.drainSteering();
    this.loopDetector.resetCount();
    let rounds = 0;
    let stopContinues = 0;
    let overflowRetried = false;
    // A note for the next request only (after a malformed call or a cut answer); never stored.
    let note: string | undefined;
    let malformedRetried = false;
    let continuations = 0;
    let pauses = 0;
    // Replies meant as a call that could not be read, in a row: the model is asked again once.
    let unreadable = 0;
    const signal = this.control.signal;
    for (;;) {
      const { maxTurns } = this.configValue;
      const maxToolRoundsPerInput = maxToolRoundsFor(this.configValue);
      if (maxToolRoundsPerInput > 0 && rounds >= maxToolRoundsPerInput) {
        this.emitTurnLimit("max_tool_rounds_per_input", maxToolRoundsPerInput, rounds);
        return { end: "turn_limit", rounds };
      }
      if (maxTurns > 0 && this.turnCount >= maxTurns) {
        this.emitTurnLimit("max_turns", maxTurns, rounds);
        return { end: "turn_limit", rounds };
      }
      if (signal.aborted) return { end: "aborted", rounds };

      let request = await this.buildRequest(signal, note);
      if (this.configValue.autoCompact && this.compactionDue(request)) {
        await this.compactHistory("threshold", request);
        request = await this.buildRequest(signal, note);
      }
      note = undefined;
      let response: Response;
      try {
        response = await this.callModel(request, signal);
      } catch (error) {
        if (signal.aborted) return { end: "aborted", rounds };
        // A context overflow is compacted away and the call retried once.
        if (!overflowRetried && (await this.compactAfterOverflow(error, request))) {
          overflowRetried = true;
          continue;
        }
        if (signal.aborted) return { end: "aborted", rounds };
        this.onModelError(error);
        return { end: "error", rounds };
      }
      const turn = responseToTurn(response, new Date().toISOString());
      overflowRetried = false;
      const finish = classifyFinish(response);
      // A turn whose calls may be cut or unreadable is not kept: its calls would have no results.
      const keep =
        finish.kind === "normal" ||
        finish.kind === "paused" ||
        (finish.kind === "truncated" && turn.toolCalls.length === 0 && continuations < MAX_CONTINUATIONS);
      if (keep) this.turns.push(turn);
      this.usageTotals = addUsage(this.usageTotals, turn.usage);
      this.emit("assistant_text_end", {
        text: turn.content,
        ...(turn.reasoning !== undefined && { reasoning: turn.reasoning }),
        toolCalls: turn.toolCalls.map((c) => ({ id: c.id, name: c.name })),
        finishReason: response.finishReason.reason,
        usage: turn.usage,
        ...(turn.responseId !== undefined && { responseId: turn.responseId }),
        ...searchesAndCitations(turn.parts),
      });
      this.checkContext(request);
      switch (finish.kind) {
        case "normal":
          pauses = 0;
          break;
        case "paused":
          if (++pauses > MAX_PAUSES) {
            this.emitFinishError(
              `The provider paused the turn ${MAX_PAUSES} times in a row; stopping here.`,
              "PausedTurnError",
              "pause_turn",
            );
            return { end: "error", rounds };
          }
          this.emit("warning", {
            code: "paused_turn",
            message: "The provider paused a long turn; sending it back so the model goes on.",
          });
          continue;
        case "malformed":
          if (!malformedRetried) {
            malformedRetried = true;
            note = MALFORMED_CALL_NOTE;
            this.emit("warning", {
              code: "malformed_call",
              message: `The model's function call was malformed (${finish.raw}); asking it once more.`,
            });
            continue;
          }
          this.emitFinishError(
            `The model produced a malformed function call twice (${finish.raw}).`,
            "MalformedFunctionCallError",
            finish.raw,
          );
          return { end: "error", rounds };
        case "truncated":
          if (keep) {
            continuations++;
            note = CONTINUE_NOTE;
            this.emit("warning", {
              code: "continued",
              message: `The answer was cut at the output limit (${finish.raw}); asking the model to continue.`,
            });
            continue;
          }
          this.emitFinishError(
            `The model's answer was cut at the output limit (${finish.raw}) and could not be continued.`,
            "OutputLimitError",
            finish.raw,
          );
          return { end: "error", rounds };
        case "refused":
          this.emitFinishError(
            `The model declined to answer (${finish.raw}).`,
            "ContentFilterError",
            finish.raw,
          );
          return { end: "error", rounds };
        case "failed":
          this.emitFinishError(
            `The model's response ended in error (${finish.raw}).`,
            "ResponseError",
            finish.raw,
          );
          return { end: "error", rounds };
      }
      if (turn.toolCalls.length === 0) {
        const stop = await this.stopDecision(turn.content, stopContinues > 0);
        if (stop?.halt !== undefined) this.halt(stop.halt);
        if (stop?.action === "continue" && !signal.aborted) {
          if (stopContinues < MAX_STOP_HOOK_CONTINUATIONS) {
            stopContinues++;
            this.injectHookMessage(stop.reason);
            continue;
          }
          this.emit("warning", {
            code: "hook",
            message: `Stop hooks asked the model to continue ${MAX_STOP_HOOK_CONTINUATIONS} times in a row; the answer stands.`,
          });
        }
        if (signal.aborted) return { end: "aborted", rounds };
        return { end: asksQuestion(turn.content) ? "awaiting_input" : "completed", rounds };
      }
      unreadable = onlyUnreadableCalls(turn.toolCalls) ? unreadable + 1 : 0;
      if (unreadable >= 2) {
        this.emit("error", {
          message: UNREADABLE_TWICE_MESSAGE,
          errorName: "UnreadableToolCallError",
          retryable: false,
          fatal: false,
        });
        return { end: "error", rounds };
      }
      // Even when interrupted here, the round runs: its calls get "did not run" results.
      rounds++;
      const results = await runGuardedToolRound(turn.toolCalls, {
        registry: this.profileValue.toolRegistry,
        subagents: this.subagents,
        allowed: (name) => this.isToolAllowed(name),
        environment: this.environment,
        processes: this.processes,
        config: this.configValue,
        defaultCommandTimeoutMs:
          this.profileValue.defaultCommandTimeoutMs ?? this.configValue.defaultCommandTimeoutMs,
        parallel: this.profileValue.supportsParallelToolCalls,
        signal,
        onStart: (data) => this.emit("tool_call_start", data),
        onOutputDelta: (data) => this.emit("tool_call_output_delta", data),
        onEnd: (data) => this.emit("tool_call_end", data),
        guard: (call) => this.refusal(call),
        onHookError: (event, error) => this.hookFailed(event, error),
        onHalt: (reason) => this.halt(reason),
      });
      this.turns.push({ kind: "tool_results", results, timestamp: new Date().toISOString() });
      if (signal.aborted) return { end: "aborted", rounds };
      this.drainSteering();
      if (this.configValue.enableLoopDetection && this.detectLoop(turn.toolCalls)) {
        const detections = this.loopDetector.detections;
        this.emit("error", {
          message: loopStopMessage(detections),
          errorName: "LoopDetectedError",
          retryable: false,
          fatal: false,
        });
        return { end: "error", rounds };
      }
    }
  }

  /**
   * One model call. A stream that breaks after it started (reset, in-stream error event, bad
   * frame) is retried here under the retry policy: a RETRY event tells hosts to drop the partial
   * answer, and the same request goes again; no tool has run, since tools run only on a whole
   * response.
   */
  private async callModel(request: Request, signal: AbortSignal): Promise<Response> {
    const policy = this.retryPolicy;
    const maxRetries = policy.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let started = false;
      try {
        const stream = readThroughProtocol(this.profileValue, this.openStream(this.client, request));
        return await readAssistantStream(stream, {
          onStart: () => {
            started = true;
            this.emit("assistant_text_start", { model: request.model });
          },
          onDelta: (delta, channel) => this.emit("assistant_text_delta", { delta, channel }),
        });
      } catch (error) {
        const retryable = policy.shouldRetry ? policy.shouldRetry(error, attempt + 1) : isRetryable(error);
        if (!started || signal.aborted || attempt >= maxRetries || !retryable) throw error;
        const delay = backoffDelay(attempt + 1, policy);
        policy.onRetry?.(error, attempt + 1, delay);
        this.emitRetry(error, attempt + 1, delay, true);
        await (policy.sleep ?? abortableSleep)(delay, signal);
      }
    }
  }

  private emitRetry(error: unknown, attempt: number, delayMs: number, discardPartial: boolean): void {
    const { message, errorName, statusCode } = describeError(error);
    this.emit("retry", {
      attempt,
      maxRetries: this.retryPolicy.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
      delayMs: Math.round(delayMs),
      message,
      errorName,
      ...(statusCode !== undefined && { statusCode }),
      discardPartial,
    });
  }

  /** A response that ended the input without success: a non-fatal ERROR naming the finish reason. */
  private emitFinishError(message: string, errorName: string, finishReason: string): void {
    this.emit("error", { message, errorName, retryable: false, fatal: false, finishReason });
  }

  /** Runs a host hook; a failure becomes a WARNING and counts as no answer. */
  private async hook<T>(
    event: HookEventName,
    run: (() => T | Promise<T>) | undefined,
  ): Promise<Awaited<T> | undefined> {
    if (!run) return undefined;
    const pending = (async (): Promise<Awaited<T> | undefined> => {
      try {
        return await run();
      } catch (error) {
        this.hookFailed(event, error);
        return undefined;
      }
    })();
    // An interrupt stops waiting for a slow hook (its answer no longer matters); a hook started
    // while stopping (sessionEnd) is awaited.
    const signal = this.control.signal;
    if (signal.aborted) return pending;
    return new Promise<Awaited<T> | undefined>((resolve) => {
      const onAbort = () => resolve(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      void pending.then((value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      });
    });
  }

  private hookFailed(event: HookEventName, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.emit("warning", { code: "hook", message: `The ${event} hook failed: ${message}` });
  }

  /** A hook asked to stop: the running cycle ends as if interrupted, and the host is told why. */
  private halt(reason: string): void {
    this.emit("warning", { code: "hook", message: `Stopped by a hook: ${reason}` });
    this.control.interrupt();
  }

  /** The sessionStart hook, once per session, before its first input: the context it returns. */
  private async runStartHook(): Promise<string | undefined> {
    if (this.startHookRan) return undefined;
    this.startHookRan = true;
    const hook = this.configValue.hooks?.sessionStart;
    const outcome = await this.hook("SessionStart", hook && (() => hook({ source: this.startSource })));
    const context = outcome?.additionalContext?.trim();
    return context ? context : undefined;
  }

  private async stopDecision(
    lastMessage: string,
    stopHookActive: boolean,
  ): Promise<StopDecision | undefined> {
    const hooks = this.configValue.hooks;
    if (this.depth > 0) {
      const hook = hooks?.subagentStop;
      return this.hook(
        "SubagentStop",
        hook && (() => hook({ stopHookActive, lastMessage, agentId: this.id })),
      );
    }
    const hook = hooks?.stop;
    return this.hook("Stop", hook && (() => hook({ stopHookActive, lastMessage })));
  }

  /** A hook's words for the model, as a steering message. */
  private injectHookMessage(content: string): void {
    this.turns.push({ kind: "steering", content, source: "hook", timestamp: new Date().toISOString() });
    this.emit("steering_injected", { content, source: "hook" });
  }

  private emitTurnLimit(limit: EventDataMap["turn_limit"]["limit"], value: number, rounds: number): void {
    this.emit("turn_limit", { limit, value, toolRounds: rounds, totalTurns: this.turnCount });
  }

  private drainSteering(): void {
    for (const content of this.steering.drain()) {
      this.turns.push({ kind: "steering", content, source: "host", timestamp: new Date().toISOString() });
      this.emit("steering_injected", { content, source: "host" });
    }
  }

  /** Records the round's calls; true when the loop persisted past maxLoopDetections warnings. */
  private detectLoop(calls: readonly { name: string; arguments: unknown }[]): boolean {
    let length: number | undefined;
    for (const call of calls) length = this.loopDetector.record(call.name, call.arguments) ?? length;
    if (length === undefined) return false;
    const limit = this.configValue.maxLoopDetections ?? DEFAULT_MAX_LOOP_DETECTIONS;
    if (limit > 0 && this.loopDetector.detections >= limit) return true;
    const window = this.configValue.loopDetectionWindow;
    const message = loopWarning(window);
    this.turns.push({
      kind: "steering",
      content: message,
      source: "loop_detection",
      timestamp: new Date().toISOString(),
    });
    const recent = this.recentToolNames(length);
    this.emit("loop_detection", { message, patternLength: length, toolNames: recent });
    return false;
  }

  private recentToolNames(count: number): string[] {
    const names: string[] = [];
    for (let i = this.turns.length - 1; i >= 0 && names.length < count; i--) {
      const t = this.turns[i]!;
      if (t.kind === "assistant") {
        for (let j = t.toolCalls.length - 1; j >= 0 && names.length < count; j--)
          names.unshift(t.toolCalls[j]!.name);
      }
    }
    return names;
  }

  private checkContext(request: Request): void {
    const system = request.messages[0];
    const systemText = system?.content[0]?.kind === "text" ? system.content[0].text : "";
    const used = this.contextTracker.measure(this.turns, systemText);
    const percent = this.contextTracker.check(used);
    if (percent !== undefined) {
      this.emit("warning", {
        code: "context_usage",
        message: contextWarning(percent),
        usedTokens: used,
        contextWindow: this.profileValue.contextWindowSize,
      });
    }
  }

  private onModelError(error: unknown): void {
    const action = decideOnProviderError(error);
    const described = describeError(error);
    if (action.warning) {
      this.emit("warning", {
        code: action.warning.code,
        message: action.warning.message,
        contextWindow: this.profileValue.contextWindowSize,
      });
    }
    if (action.kind === "close") {
      this.fatal = true;
      this.emit("error", { ...described, fatal: true });
      return;
    }
    this.emit("error", { ...described, fatal: false });
  }

  /** Why a call must not run (unreadable prompted call, read-only mode), or undefined. */
  private refusal(call: ToolCallData): string | undefined {
    return (
      unreadableToolCall(call) ??
      refusalInMode(this.configValue.readOnlyMode, call, this.profileValue.toolRegistry.get(call.name))
    );
  }

  private compactionDue(request: Request): boolean {
    const { contextWindowSize } = this.profileValue;
    return this.compactor.due(this.turns, request, contextWindowSize, this.configValue.compactionThreshold);
  }

  /** After a provider error: for a context overflow, compacts and says whether a retry may now fit. */
  private async compactAfterOverflow(error: unknown, request: Request): Promise<boolean> {
    if (!(error instanceof ContextLengthError) || !this.configValue.autoCompact) return false;
    const result = await this.compactHistory("context_length", request);
    const shrank = result.summarized || result.prunedToolOutputs > 0;
    return shrank && result.tokensAfter < this.profileValue.contextWindowSize;
  }

  private async compactHistory(
    reason: CompactionReason,
    request: Request,
    focus?: string,
  ): Promise<CompactionResult> {
    const preCompact = this.configValue.hooks?.preCompact;
    await this.hook(
      "PreCompact",
      preCompact &&
        (() =>
          preCompact({
            trigger: reason === "manual" ? "manual" : "auto",
            ...(focus !== undefined && { focus }),
          })),
    );
    const result = await this.compactor.compact({
      reason,
      turns: this.turns,
      request,
      contextWindow: this.profileValue.contextWindowSize,
      threshold: this.configValue.compactionThreshold,
      ...(focus !== undefined && { focus }),
      stream: (summaryRequest) => this.openStream(this.client, summaryRequest),
      modifies: (name) => this.profileValue.toolRegistry.get(name)?.readOnly !== true,
      onStart: (data) => this.emit("compaction_start", data),
      onEnd: (data) => this.emit("compaction_end", data),
    });
    if (result.turns !== this.turns) this.turns.splice(0, this.turns.length, ...result.turns);
    // As after a fresh start, the sessionStart hook may give context to carry past the summary.
    const startHook = this.configValue.hooks?.sessionStart;
    if (result.summarized && startHook) {
      const outcome = await this.hook("SessionStart", () => startHook({ source: "compact" }));
      if (outcome?.additionalContext?.trim()) this.injectHookMessage(outcome.additionalContext.trim());
    }
    if (result.usage) this.usageTotals = addUsage(this.usageTotals, result.usage);
    return result;
  }

  private isToolAllowed(name: string): boolean {
    const tool = this.profileValue.toolRegistry.get(name);
    if (!tool) return false;
    if (!this.subagents.offersTool(name)) return false;
    return this.configValue.toolFilter ? this.configValue.toolFilter(tool) : true;
  }

  /**
   * Starts gathering what the system prompt is built from (the git snapshot, project docs) now
   * rather than at the first request, so a host can overlap it with its own start-up; idempotent.
   */
  prepare(): void {
    this.promptContext ??= preparePromptContext(
      this.environment,
      this.profileValue,
      this.configValue.userInstructionFiles,
    );
  }

  private async buildRequest(signal: AbortSignal, note?: string): Promise<Request> {
    this.prepare();
    const context = await (this.promptContext as Promise<PromptContext>);
    if (this.toolsReady) await this.toolsReady(signal);
    const profile = this.profileValue;
    const mode = this.configValue.readOnlyMode;
    const tools = profile.tools().filter((t) => {
      const tool = profile.toolRegistry.get(t.name);
      return tool !== undefined && this.isToolAllowed(t.name) && offeredInMode(mode, tool);
    });
    const split = splitProviderTools(profile, withSubagentTypes(tools, this.configValue.subagentTypes));
    this.noteUnavailable(split.unavailable);
    const offered = split.offered;
    const offer = toolOffer(profile, split.functions);
    const skills = this.configValue.skills;
    const toolInstructions = this.toolInstructions?.();
    const promptInputs = [
      profile,
      this.environment,
      context,
      mode,
      skills,
      offer.toolCallInstructions,
      this.configValue.userInstructions,
      this.configValue.systemPrompt,
      toolInstructions,
      // By value: the offered list is made anew for each request.
      ...offered.flatMap((t) => [t.name, t.description, t.parameters]),
    ];
    const system = this.systemPrompt.message(promptInputs, () =>
      this.buildSystemPrompt(context, offered, offer, toolInstructions),
    );
    const providerOptions = profile.providerOptions();
    return {
      model: profile.model,
      provider: profile.provider,
      messages: [
        system,
        ...modelMessages(profile, this.turns),
        ...(note !== undefined ? [userMessage(note)] : []),
      ],
      // One key for the whole session, so its requests share the provider's prompt cache.
      cacheKey: this.id,
      ...(offer.requestTools.length > 0 && {
        tools: offer.requestTools,
        toolChoice: { mode: "auto" } as const,
      }),
      ...(split.providerTools.length > 0 && { providerTools: split.providerTools }),
      ...(this.configValue.reasoningEffort !== undefined && {
        reasoningEffort: this.configValue.reasoningEffort,
      }),
      ...(providerOptions !== undefined && { providerOptions }),
      signal,
    };
  }

  /** Says once per tool that a provider-run tool is not offered because the provider has none. */
  private noteUnavailable(names: readonly string[]): void {
    for (const name of names) {
      if (this.unavailableNoted.has(name)) continue;
      this.unavailableNoted.add(name);
      this.emit("warning", {
        code: "config",
        message:
          `${name} is not offered: the ${this.profileValue.provider} provider runs no such tool of its ` +
          "own with this profile.",
      });
    }
  }

  private buildSystemPrompt(
    context: PromptContext,
    offered: readonly ToolDefinition[],
    offer: ReturnType<typeof toolOffer>,
    toolInstructions: string | undefined,
  ): string {
    const profile = this.profileValue;
    const mode = this.configValue.readOnlyMode;
    return profile.buildSystemPrompt({
      environment: this.environment,
      model: profile.model,
      environmentBlock: context.environmentBlock(profile),
      ...(context.gitSnapshot !== undefined && { gitSnapshot: context.gitSnapshot }),
      projectDocs: context.projectDocs,
      tools: offered,
      ...(this.configValue.skills !== undefined &&
        this.configValue.skills.length > 0 && { skills: formatSkillsSection(this.configValue.skills) }),
      ...(offer.toolCallInstructions !== undefined && { toolCallInstructions: offer.toolCallInstructions }),
      ...(toolInstructions !== undefined && { toolInstructions }),
      ...(mode !== undefined && { modeInstructions: modeInstructions(mode) }),
      ...(this.configValue.userInstructions !== undefined && {
        userInstructions: this.configValue.userInstructions,
      }),
      ...(this.configValue.systemPrompt !== undefined && { basePrompt: this.configValue.systemPrompt }),
    });
  }
}

/** Whether a final answer ends by asking the user something. */
function asksQuestion(text: string): boolean {
  const trimmed = text.trimEnd();
  return trimmed.endsWith("?");
}

/** The tools with spawn_agent's description listing the subagent types, when there are any. */
function withSubagentTypes(
  tools: readonly ToolDefinition[],
  types: readonly SubagentType[] | undefined,
): ToolDefinition[] {
  if (!types || types.length === 0) return [...tools];
  return tools.map((t) =>
    t.name === "spawn_agent" ? { ...t, description: t.description + describeSubagentTypes(types) } : t,
  );
}
