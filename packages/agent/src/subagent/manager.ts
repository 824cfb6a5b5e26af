import { toolNamesFor } from "../customization/claude-code-names.js";
import type { SubagentType } from "../customization/subagent-types.js";
import { ToolError } from "../tools/shared/tool-errors.js";
import type { SessionConfig } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { EventDataMap, SessionEvent } from "../types/events.js";
import type { ProviderProfile } from "../types/profile.js";
import { type SubagentResult, SubagentStatus } from "../types/session.js";
import type { RegisteredTool } from "../types/tool.js";
import type { Turn } from "../types/turn.js";
import { scopeEnvironment } from "./scoped-environment.js";
import { bindSubagentTool } from "./tools.js";

/** Names of the tools that manage subagents. */
export const SUBAGENT_TOOL_NAMES: ReadonlySet<string> = new Set([
  "spawn_agent",
  "send_input",
  "wait",
  "close_agent",
]);

/** The part of a Session the manager drives, as parent and as child. */
export interface ManagedSession {
  readonly id: string;
  readonly depth: number;
  readonly config: SessionConfig;
  readonly profile: ProviderProfile;
  readonly environment: ExecutionEnvironment;
  readonly history: readonly Turn[];
  readonly turnCount: number;
  submit(input: string): Promise<void>;
  /** Stops the current work; the session stays usable. */
  interrupt(): Promise<void>;
  close(): Promise<void>;
  subscribe(listener: (event: SessionEvent) => void): () => void;
}

/** Creates a child session; the Session class supplies it (avoiding an import cycle). */
export type ChildFactory = (options: {
  readonly profile: ProviderProfile;
  readonly environment: ExecutionEnvironment;
  readonly config: Partial<SessionConfig>;
  readonly depth: number;
}) => ManagedSession;

/** A running or finished subagent. */
export interface SubagentHandle {
  readonly id: string;
  readonly session: ManagedSession;
  readonly status: SubagentStatus;
}

export interface SpawnOptions {
  readonly task: string;
  /** A subdirectory of the parent's working directory to scope the child to. */
  readonly workingDir?: string;
  readonly model?: string;
  /** 0 = unlimited. */
  readonly maxTurns?: number;
  /** The name of one of the parent's config.subagentTypes. */
  readonly subagentType?: string;
  /** The parent's tool call that spawns it; forwarded events carry it. */
  readonly callId?: string;
}

/** Model names that mean "the parent's model" in a subagent file (Claude Code's aliases included). */
const INHERITED_MODELS = new Set(["inherit", "sonnet", "opus", "haiku"]);

/** Thrown for a request the model can correct (unknown id, depth limit…); tools turn it into an error result. */
export class SubagentError extends ToolError {
  constructor(message: string) {
    super("subagent_request", message);
    this.name = "SubagentError";
  }
}

interface Entry {
  readonly id: string;
  readonly session: ManagedSession;
  status: SubagentStatus;
  running: Promise<void>;
  lastEnd?: string;
  closed: boolean;
}

/** A session's children: spawn, talk to, wait for and close them. */
export class SubagentManager {
  private readonly entries = new Map<string, Entry>();
  private createChild: ChildFactory | undefined;
  private readonly bound = new WeakMap<RegisteredTool, RegisteredTool>();

  constructor(
    private readonly parent: ManagedSession,
    /** Receives every event of every child, tagged (the parent emits it as SUBAGENT_EVENT). */
    private readonly forward?: (data: EventDataMap["subagent_event"]) => void,
  ) {}

  /** Installs the factory for child sessions (done by Session). */
  setChildFactory(factory: ChildFactory): void {
    this.createChild = factory;
  }

  /** Whether the subagent tool `name` is offered at this session's depth (other names: always). */
  offersTool(name: string): boolean {
    if (!SUBAGENT_TOOL_NAMES.has(name)) return true;
    return this.parent.depth < this.parent.config.maxSubagentDepth;
  }

  /**
   * The tool as this session runs it: a built-in subagent tool bound to this manager, any other
   * tool as it is. Explicit binding, rather than async context, keeps promise hooks off.
   */
  bindTool(tool: RegisteredTool): RegisteredTool {
    let bound = this.bound.get(tool);
    if (!bound) {
      bound = bindSubagentTool(tool, this) ?? tool;
      this.bound.set(tool, bound);
    }
    return bound;
  }

  /** Every subagent, running or finished. */
  list(): SubagentHandle[] {
    return [...this.entries.values()].map((e) => ({ id: e.id, session: e.session, status: e.status }));
  }

  /** Starts a child on a task; it runs concurrently with the parent. */
  spawn(options: SpawnOptions): SubagentHandle {
    const depth = this.parent.depth + 1;
    if (depth > this.parent.config.maxSubagentDepth) {
      throw new SubagentError(
        `Subagent depth limit reached (max ${this.parent.config.maxSubagentDepth}); do the work yourself.`,
      );
    }
    if (!this.createChild) throw new SubagentError("This session cannot create subagents");
    if (options.task.trim() === "") throw new SubagentError("task must not be empty");
    const environment =
      options.workingDir === undefined
        ? this.parent.environment
        : scopeEnvironment(this.parent.environment, options.workingDir);
    const type = this.subagentType(options.subagentType);
    const typeModel = type?.model && !INHERITED_MODELS.has(type.model) ? type.model : undefined;
    const model = options.model ?? typeModel;
    const profile =
      model && model !== this.parent.profile.model
        ? this.parent.profile.withModel(model)
        : this.parent.profile;
    const session = this.createChild({
      profile,
      environment,
      config: {
        ...this.parent.config,
        ...childHooks(this.parent.config.hooks),
        ...(type && typeConfig(type, this.parent.config)),
        maxTurns: options.maxTurns ?? 0,
      },
      depth,
    });
    const entry: Entry = {
      id: session.id,
      session,
      status: SubagentStatus.RUNNING,
      running: Promise.resolve(),
      closed: false,
    };
    session.subscribe((event) => {
      if (event.kind === "processing_end") entry.lastEnd = event.data.reason;
      this.forward?.({
        agentId: session.id,
        ...(options.callId !== undefined && { parentCallId: options.callId }),
        ...(type !== undefined && { agentType: type.name }),
        event,
      });
    });
    this.entries.set(entry.id, entry);
    this.run(entry, options.task);
    return { id: entry.id, session, status: entry.status };
  }

  /** Sends another message to a child; it starts working again if it had finished. */
  sendInput(id: string, message: string): SubagentStatus {
    const entry = this.entry(id);
    if (entry.closed) throw new SubagentError(`Agent ${id} is closed`);
    this.run(entry, message);
    return entry.status;
  }

  /** Waits until the child has nothing left to do, and returns its last answer. */
  async wait(id: string, signal?: AbortSignal): Promise<SubagentResult> {
    const entry = this.entry(id);
    let seen: Promise<void> | undefined;
    // send_input may start new work while we wait; wait for that too.
    while (seen !== entry.running) {
      seen = entry.running;
      if (signal) await Promise.race([seen, aborted(signal)]);
      else await seen;
      if (signal?.aborted) throw new SubagentError("wait was cancelled");
    }
    return this.result(entry);
  }

  /** Stops a child (aborting any work) and returns its final status. */
  async close(id: string): Promise<SubagentStatus> {
    const entry = this.entry(id);
    await this.shut(entry);
    return entry.status;
  }

  /** Stops the current work of every running child (they stay open for send_input). */
  async interruptAll(): Promise<void> {
    const running = [...this.entries.values()].filter(
      (e) => !e.closed && e.status === SubagentStatus.RUNNING,
    );
    await Promise.all(running.map((e) => e.session.interrupt()));
  }

  /** Closes every child; used when the parent shuts down. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.shut(e)));
  }

  private async shut(entry: Entry): Promise<void> {
    if (entry.closed) return;
    entry.closed = true;
    const wasRunning = entry.status === SubagentStatus.RUNNING;
    await entry.session.close();
    if (wasRunning) entry.status = SubagentStatus.FAILED;
  }

  private run(entry: Entry, input: string): void {
    entry.status = SubagentStatus.RUNNING;
    const cycle = entry.session.submit(input).then(
      () => {
        if (entry.running !== cycle) return;
        const ok = entry.lastEnd !== "error" && entry.lastEnd !== "aborted";
        entry.status = ok ? SubagentStatus.COMPLETED : SubagentStatus.FAILED;
      },
      () => {
        if (entry.running === cycle) entry.status = SubagentStatus.FAILED;
      },
    );
    entry.running = cycle;
  }

  private result(entry: Entry): SubagentResult {
    let output = "";
    const history = entry.session.history;
    for (let i = history.length - 1; i >= 0; i--) {
      const t = history[i]!;
      if (t.kind === "assistant" && t.content.trim() !== "") {
        output = t.content;
        break;
      }
    }
    return { output, success: entry.status === SubagentStatus.COMPLETED, turnsUsed: entry.session.turnCount };
  }

  private subagentType(name: string | undefined): SubagentType | undefined {
    if (name === undefined || name.trim() === "") return undefined;
    const types = this.parent.config.subagentTypes ?? [];
    const found = types.find((t) => t.name === name);
    if (!found) {
      const known = types.map((t) => t.name);
      throw new SubagentError(
        `Unknown subagent_type: ${name}${known.length ? ` (available: ${known.join(", ")})` : " (none are defined)"}`,
      );
    }
    return found;
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) {
      const known = [...this.entries.keys()];
      throw new SubagentError(
        `Unknown agent_id: ${id}${known.length ? ` (known: ${known.join(", ")})` : ""}`,
      );
    }
    return entry;
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * The hooks a child runs: tool, subagent-stop, compaction and notification hooks. The session
 * hooks (start, end, prompt submission, stop) belong to the user's own session, as in Claude Code.
 */
function childHooks(hooks: SessionConfig["hooks"]): Partial<SessionConfig> {
  if (!hooks) return {};
  const { sessionStart: _start, sessionEnd: _end, userPromptSubmit: _prompt, stop: _stop, ...rest } = hooks;
  return { hooks: rest };
}

/** A child's configuration for a subagent type: its file's body as the system prompt, only its tools. */
function typeConfig(type: SubagentType, parent: SessionConfig): Partial<SessionConfig> {
  const allowed = type.tools ? new Set(type.tools.flatMap((t) => toolNamesFor(t))) : undefined;
  const parentFilter = parent.toolFilter;
  return {
    ...(type.prompt.trim() !== "" && { systemPrompt: type.prompt }),
    ...(allowed && {
      toolFilter: (tool) => allowed.has(tool.definition.name) && (parentFilter ? parentFilter(tool) : true),
    }),
  };
}
