import type { Session, SessionEvent } from "@attractor/agent";
import type { CheckpointDiff, CheckpointGroup, CheckpointManager } from "../checkpoints/index.js";
import type { AskAnswer, PermissionMode, PermissionRequest } from "../permissions/index.js";
import type { SessionStore, SessionSummary } from "../store/index.js";

/** One entry of the model's todo list, as the `todo` tool keeps it. */
export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: "pending" | "in_progress" | "completed";
}

/** A question the model puts to the user through the `ask_user` tool. */
export interface AskUserQuestion {
  readonly question: string;
  /** Choices to pick from; free text when absent. */
  readonly options?: readonly string[];
}

/**
 * What a front end supplies to a runtime: how to ask the user. The headless front end answers
 * without a user (permissions denied unless allowed by mode or rule, ask_user told nobody is there).
 */
export interface RuntimeUi {
  askPermission(request: PermissionRequest): Promise<AskAnswer>;
  /** Resolves with the user's answer (one of the options, or free text). */
  askUser(question: AskUserQuestion): Promise<string>;
}

/** Tokens and money spent so far in this run (all sessions of the runtime). */
export interface CostSummary {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly totalTokens: number;
  /** US dollars from the catalog prices; undefined when the model has no known price. */
  readonly costUsd: number | undefined;
}

/** What the runtime tells a front end besides session events. */
export type RuntimeNotice =
  | { readonly kind: "session_changed"; readonly sessionId: string; readonly restoredTurns: number }
  | { readonly kind: "mode_changed"; readonly mode: PermissionMode }
  | { readonly kind: "model_changed"; readonly model: string }
  | { readonly kind: "todos_changed"; readonly todos: readonly TodoItem[] }
  | { readonly kind: "checkpoint_restored"; readonly files: readonly string[] }
  | { readonly kind: "warning"; readonly message: string };

/**
 * One running agent as the terminal front ends use it: a Session wired to permissions,
 * checkpoints and the session store. The Session may be replaced (/clear, /resume); listeners
 * registered with `subscribe` follow the current one.
 */
export interface Runtime {
  readonly session: Session;
  readonly provider: string;
  readonly model: string;
  readonly mode: PermissionMode;
  /** The project directory (the --cwd or the current directory). */
  readonly projectDir: string;
  readonly checkpoints: CheckpointManager;
  readonly store: SessionStore;
  readonly todos: readonly TodoItem[];
  /** Every event of the current session and its successors, plus runtime notices. */
  subscribe(listener: (event: SessionEvent | RuntimeNotice) => void): () => void;
  /** Runs one user message to the end of its cycle. */
  submit(text: string): Promise<void>;
  /** Stops the running turn (model stream and tool processes); the session stays usable. */
  interrupt(): Promise<void>;
  setMode(mode: PermissionMode): void;
  setModel(model: string): void;
  cost(): CostSummary;
  /** Share of the model's context window in use after the last response, 0–100. */
  contextPercent(): number | undefined;
  /** Restores the project to before the last change; undefined when there is nothing to undo. */
  undo(): Promise<{ readonly files: readonly string[] } | undefined>;
  /** Checkpoints per user message, for /rewind. */
  rewindPoints(): Promise<readonly CheckpointGroup[]>;
  /** The text of the user message a checkpoint group's `userMessageId` names, when known. */
  userMessageText?(userMessageId: string): string | undefined;
  /** What restoring a checkpoint would change. */
  previewRestore(checkpointId: string): Promise<CheckpointDiff>;
  restore(checkpointId: string): Promise<{ readonly files: readonly string[] }>;
  /** Shrinks the context now (prune old tool output, then summarise), optionally focused. */
  compact(focus?: string): Promise<void>;
  /** Starts a fresh session (new transcript) with the same settings. */
  clear(): Promise<void>;
  /** Stored sessions of this project, newest first. */
  listSessions(): Promise<readonly SessionSummary[]>;
  /** Replaces the current session with a stored one. */
  resume(sessionId: string): Promise<void>;
  /** Closes the session and flushes the transcript. */
  close(): Promise<void>;
}
