/**
 * A test double of the Runtime interface for the interactive UI and slash-command tests: events
 * are emitted by the test, calls are recorded, and checkpoints go through a real checkpoint
 * manager on a temp project (real git), so /undo and /rewind change real files.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAnthropicProfile,
  type EventDataMap,
  type EventKind,
  LocalExecutionEnvironment,
  Session,
  type SessionEvent,
  type Turn,
} from "@attractor/agent";
import type { ImageData } from "@attractor/llm";
import type { CostSummary, Runtime, RuntimeNotice, RuntimeUpdate, TodoItem } from "@attractor/runtime";
import { planRewindTargets } from "@attractor/runtime";
import { type CheckpointManager, createCheckpointManager } from "@attractor/runtime/checkpoints";
import type { PermissionMode } from "@attractor/runtime/permissions";
import { createSessionStore, type SessionSummary } from "@attractor/runtime/store";
import type { CommandHost, OutputBlock } from "../src/commands/index.js";

/** A Runtime whose behaviour a test scripts and whose calls it reads back. */
export interface FakeRuntime extends Runtime {
  emit(event: SessionEvent | RuntimeNotice): void;
  readonly calls: {
    submitted: string[];
    /** The images of each submitted message that had any, by the message's text. */
    images: { text: string; images: readonly ImageData[] }[];
    interrupts: number;
    closed: number;
    cleared: number;
    resumed: string[];
    compacted: (string | undefined)[];
    models: string[];
    modes: PermissionMode[];
    steered: string[];
    userCommands: string[];
    /** History positions rewindConversation was called with, and the checkpoint restored. */
    rewound: { turnIndex: number; restoreCheckpoint: string | undefined }[];
  };
  /** Transcript entry ids of the session's history turns, by index (for rewindTargets). */
  entryIds: (string | undefined)[];
  /** Sessions listSessions() returns. */
  sessions: SessionSummary[];
  costValue: CostSummary;
  context: number | undefined;
  todoList: TodoItem[];
  messageTexts: Map<string, string>;
  /** Set to make the next submit() reject. */
  submitError: Error | undefined;
  /** When set, submit() settles only once a processing_end is emitted (as a running turn does). */
  holdSubmits: boolean;
}

export interface FakeRuntimeFixture {
  readonly runtime: FakeRuntime;
  readonly project: string;
  readonly home: string;
  readonly checkpoints: CheckpointManager;
  cleanup(): Promise<void>;
}

const ZERO_COST: CostSummary = {
  inputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  totalTokens: 0,
  costUsd: undefined,
};

/** Builds the fake on a fresh temp project and home; `history` seeds the session (resume). */
export async function createFakeRuntime(
  options: { history?: readonly Turn[] } = {},
): Promise<FakeRuntimeFixture> {
  const root = await mkdtemp(join(tmpdir(), "attractor-tui-"));
  const project = join(root, "project");
  const home = join(root, "home");
  await mkdir(project, { recursive: true });
  const checkpoints = await createCheckpointManager({ projectRoot: project, home });
  const store = createSessionStore({ home, durable: false });
  const makeSession = (history: readonly Turn[] = []) =>
    Session.fromHistory({
      profile: createAnthropicProfile("claude-sonnet-4-5"),
      environment: new LocalExecutionEnvironment({ workingDirectory: project }),
      client: {
        stream() {
          throw new Error("the fake runtime never calls the model");
        },
      },
      history,
    });
  let session = makeSession(options.history);
  let mode: PermissionMode = "normal";
  let model = "claude-sonnet-4-5";
  const listeners = new Set<(update: RuntimeUpdate) => void>();
  const calls: FakeRuntime["calls"] = {
    submitted: [],
    images: [],
    interrupts: 0,
    closed: 0,
    cleared: 0,
    resumed: [],
    compacted: [],
    models: [],
    modes: [],
    steered: [],
    userCommands: [],
    rewound: [],
  };
  let steering: string[] = [];
  const held: (() => void)[] = [];

  const runtime: FakeRuntime = {
    get session() {
      return session;
    },
    provider: "anthropic",
    get model() {
      return model;
    },
    get mode() {
      return mode;
    },
    projectDir: project,
    checkpoints,
    store,
    get todos() {
      return runtime.todoList;
    },
    calls,
    entryIds: [],
    sessions: [],
    costValue: ZERO_COST,
    context: undefined,
    todoList: [],
    messageTexts: new Map(),
    submitError: undefined,
    holdSubmits: false,
    emit(event) {
      // Session events carry a timestamp; the runtime's notices never do.
      const update: RuntimeUpdate =
        "timestamp" in event ? { source: "session", event } : { source: "runtime", notice: event };
      for (const l of [...listeners]) l(update);
      if (event.kind === "processing_end") for (const release of held.splice(0)) release();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async submit(input) {
      const text = typeof input === "string" ? input : input.text;
      calls.submitted.push(text);
      if (typeof input !== "string" && input.images?.length)
        calls.images.push({ text, images: input.images });
      if (runtime.submitError) throw runtime.submitError;
      if (runtime.holdSubmits) await new Promise<void>((resolve) => held.push(resolve));
    },
    async runUserCommand(command, onOutput) {
      calls.userCommands.push(command);
      onOutput?.(`ran ${command}\n`);
      return { kind: "ran", output: `ran ${command}\n`, exitCode: 0, timedOut: false };
    },
    steer(text) {
      calls.steered.push(text);
      steering = [...steering, text];
      runtime.emit({ kind: "steering_pending", messages: steering });
    },
    get pendingSteering() {
      return steering;
    },
    async interrupt() {
      calls.interrupts++;
    },
    setMode(m) {
      mode = m;
      calls.modes.push(m);
      runtime.emit({ kind: "mode_changed", mode: m });
    },
    setModel(m) {
      if (m === "no-such-model") throw new Error(`unknown model ${m}`);
      model = m;
      calls.models.push(m);
    },
    cost: () => runtime.costValue,
    contextPercent: () => runtime.context,
    async undo() {
      const result = await checkpoints.undo();
      return result ? { files: result.files.map((f) => f.path) } : undefined;
    },
    rewindPoints: () => checkpoints.list(),
    userMessageText: (id) => runtime.messageTexts.get(id),
    previewRestore: (id) => checkpoints.diff(id),
    async restore(id) {
      const result = await checkpoints.restore(id);
      return { files: result.files.map((f) => f.path) };
    },
    async rewindTargets() {
      const entries = runtime.entryIds.map((id) =>
        id === undefined ? undefined : { id, parentId: null, aliases: [] },
      );
      return planRewindTargets(session.history, entries, await checkpoints.list());
    },
    async rewindConversation(turnIndex, options = {}) {
      const target = session.history[turnIndex];
      if (target?.kind !== "user") throw new Error(`turn ${turnIndex} is not a user message`);
      calls.rewound.push({ turnIndex, restoreCheckpoint: options.restoreCheckpoint });
      let files: string[] = [];
      if (options.restoreCheckpoint !== undefined) {
        await checkpoints.snapshot({ label: "before rewinding" });
        files = (await checkpoints.restore(options.restoreCheckpoint)).files.map((f) => f.path);
      }
      session = makeSession(session.history.slice(0, turnIndex));
      runtime.entryIds = runtime.entryIds.slice(0, turnIndex);
      runtime.emit({ kind: "conversation_rewound", text: target.content, keptTurns: turnIndex });
      return { text: target.content, files };
    },
    async compact(focus) {
      calls.compacted.push(focus);
    },
    async clear() {
      calls.cleared++;
      session = makeSession();
    },
    listSessions: async () => runtime.sessions,
    async resume(id) {
      calls.resumed.push(id);
      session = makeSession([
        { kind: "user", content: `the question of ${id}`, timestamp: new Date().toISOString() },
      ]);
    },
    async close() {
      calls.closed++;
    },
  };
  return {
    runtime,
    project,
    home,
    checkpoints,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** A session event of `kind` with `data`, stamped now. */
export function sessionEvent<K extends EventKind>(
  kind: K,
  data: EventDataMap[K],
  sessionId = "s1",
): SessionEvent {
  return { kind, data, timestamp: new Date().toISOString(), sessionId } as SessionEvent;
}

/** A CommandHost that records what commands print and answers pickers from a script. */
export interface RecordingHost extends CommandHost {
  readonly shown: OutputBlock[];
  readonly asked: { title: string; labels: string[] }[];
  resets: boolean[];
  exited: number;
  /** Answers for choose(), in order: an index, or undefined to cancel. */
  picks: (number | undefined)[];
  /** Answers for confirm(), in order. */
  confirms: boolean[];
  /** All text shown, one block per line, for loose assertions. */
  text(): string;
}

/** Creates a RecordingHost. */
export function recordingHost(): RecordingHost {
  const host: RecordingHost = {
    shown: [],
    asked: [],
    resets: [],
    exited: 0,
    picks: [],
    confirms: [],
    show(block) {
      host.shown.push(block);
    },
    async choose(title, choices) {
      host.asked.push({ title, labels: choices.map((c) => c.label) });
      const pick = host.picks.shift();
      return pick === undefined ? undefined : choices[pick]?.value;
    },
    async confirm(question) {
      host.asked.push({ title: question, labels: ["Yes", "No"] });
      return host.confirms.shift() ?? false;
    },
    resetScreen(replay) {
      host.resets.push(replay);
    },
    exit() {
      host.exited++;
    },
    text() {
      return host.shown
        .map((b) =>
          b.kind === "text"
            ? `${b.tone}: ${b.text}`
            : b.kind === "list"
              ? [b.title, ...b.rows.map((r) => `${r.label} ${r.detail ?? ""}`)].join("\n")
              : [b.title, ...b.files.map((f) => `${f.change} ${f.path}`), b.patch].join("\n"),
        )
        .join("\n");
    },
  };
  return host;
}
