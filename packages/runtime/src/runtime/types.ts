import type {
  McpPromptInfo,
  McpServerSnapshot,
  SandboxEscapeAnswer,
  SandboxEscapeRequest,
  Session,
  SessionEvent,
  Skill,
  SubagentType,
} from "@attractor/agent";
import type { ImageData } from "@attractor/llm";
import type { Checkpoint, CheckpointDiff, CheckpointGroup, CheckpointManager } from "../checkpoints/index.js";
import type { CustomCommand } from "../customization/index.js";
import type { SkippedMcpServer } from "../mcp/servers.js";
import type { PermissionAnswer, PermissionMode, PermissionRequest } from "../permissions/index.js";
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
  askPermission(request: PermissionRequest): Promise<PermissionAnswer>;
  /**
   * A headless front end whose askPermission is answered by a program (the Claude Agent SDK's
   * canUseTool over the control protocol): what would ask is asked, not denied.
   */
  readonly answersPermissions?: boolean;
  /** Resolves with the user's answer (one of the options, or free text). */
  askUser(question: AskUserQuestion): Promise<string>;
  /**
   * Asks whether a command the sandbox blocked may run again outside it (once, or always for
   * this exact command). Front ends without a user leave it out: the model is told instead.
   */
  askSandboxEscape?(request: SandboxEscapeRequest): Promise<SandboxEscapeAnswer>;
  /**
   * Told when a tool call has passed the permission check (and its checkpoint is taken), just
   * before it runs: front ends that show each call's progress mark it running.
   */
  toolCallAllowed?(callId: string): void;
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
/** A model request waiting to be tried again. */
export interface RetryWait {
  readonly attempt: number;
  readonly maxRetries: number;
  readonly delayMs: number;
  readonly reason: string;
  /** When the next attempt starts (epoch ms). */
  readonly until: number;
}

export type RuntimeNotice =
  | { readonly kind: "session_changed"; readonly sessionId: string; readonly restoredTurns: number }
  | { readonly kind: "mode_changed"; readonly mode: PermissionMode }
  | { readonly kind: "model_changed"; readonly model: string }
  | { readonly kind: "todos_changed"; readonly todos: readonly TodoItem[] }
  | { readonly kind: "checkpoint_restored"; readonly files: readonly string[] }
  /** Steering messages sent and not injected yet (after every change, [] once none is left). */
  | { readonly kind: "steering_pending"; readonly messages: readonly string[] }
  /** Steering the turn ended without taking (interrupted, failed): the user may send it again. */
  | { readonly kind: "steering_dropped"; readonly messages: readonly string[] }
  /** The conversation was cut back to before a user message, whose text is given back. */
  | { readonly kind: "conversation_rewound"; readonly text: string; readonly keptTurns: number }
  /** `retry`: a model request failed and is tried again once `until` (epoch ms) is reached. */
  | { readonly kind: "warning"; readonly message: string; readonly retry?: RetryWait }
  /** What a hook printed for the user (plain output of tool and stop hooks). */
  | { readonly kind: "hook_output"; readonly text: string };

/**
 * What a runtime listener receives, in the order it happened: an event of the current session
 * (or a subagent's, nested in it), or a notice of the runtime's own. The two are told apart by
 * `source`, never by `kind`: both have a `warning`, shaped differently.
 */
export type RuntimeUpdate =
  | { readonly source: "session"; readonly event: SessionEvent }
  | { readonly source: "runtime"; readonly notice: RuntimeNotice };

/** The event or notice an update carries, for front ends that render both in one stream. */
export const updateItem = (update: RuntimeUpdate): SessionEvent | RuntimeNotice =>
  update.source === "session" ? update.event : update.notice;

/** The MCP servers of a run, for /mcp and MCP prompt commands. */
export interface RuntimeMcp {
  /**
   * Starts connecting the servers in the background (idempotent). Headless runs start at once;
   * the interactive UI starts them after its first frame; the first model request starts them
   * in any case.
   */
  start(): void;
  /** Starts the servers and resolves once each has connected or failed, or the start-up wait ended. */
  ready(): Promise<void>;
  /** Each running server's state, tools and prompts. */
  servers(): readonly McpServerSnapshot[];
  /** Configured servers that do not run (not approved, invalid), with the reason. */
  readonly skipped: readonly SkippedMcpServer[];
  prompts(): readonly McpPromptInfo[];
  /** A prompt (by its `mcp__server__prompt` name) rendered with its arguments to message text. */
  getPrompt(name: string, args: Readonly<Record<string, string>>): Promise<string>;
  /** Restarts a server's connection. */
  reconnect(server: string): Promise<void>;
}

/** A user message of the current conversation that /rewind can go back to. */
export interface RewindTarget {
  /** The message's position in `session.history`; what `rewindConversation` takes. */
  readonly turnIndex: number;
  readonly text: string;
  /** Its transcript entry id (checkpoints taken while answering it carry this id). */
  readonly userMessageId: string | undefined;
  /** Checkpoints from this message on: the changes restoring the code would undo. */
  readonly changes: number;
  /** The checkpoint holding the files as they were before this message; absent when none exists. */
  readonly checkpoint?: Checkpoint;
  /** The checkpoints taken while answering this message, oldest first. */
  readonly own: readonly Checkpoint[];
}

/** What a conversation rewind did. */
export interface ConversationRewind {
  /** The text of the message rewound to (to edit and send again). */
  readonly text: string;
  /** Files restored when a checkpoint was restored with it. */
  readonly files: readonly string[];
}

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
  /** MCP servers, when any is configured. */
  readonly mcp?: RuntimeMcp;
  /** Every event of the current session and its successors, and the runtime's notices. */
  subscribe(listener: (update: RuntimeUpdate) => void): () => void;
  /**
   * Runs one user message (text, or text with images) to the end of its cycle; while a turn
   * runs, it is queued as a follow-up and the promise settles with that turn.
   */
  submit(input: UserMessageInput): Promise<void>;
  /**
   * Steers the running turn: the message is injected after the current tool round. When the turn
   * ends without another round, it is sent as the next message; when the turn is interrupted or
   * fails, a `steering_dropped` notice gives it back. With no turn running it is submitted.
   */
  steer(text: string): void;
  /**
   * Runs a command the user typed (`!command`) in the project's shell, through the permission
   * policy as the shell tool would; what it printed is given to the model as context at the start
   * of the next message.
   */
  runUserCommand(command: string, onOutput?: (chunk: string) => void): Promise<UserCommandResult>;
  /** Steering messages sent and not injected yet, oldest first. */
  readonly pendingSteering: readonly string[];
  /** Stops the running turn (model stream and tool processes); the session stays usable. */
  interrupt(): Promise<void>;
  setMode(mode: PermissionMode): void;
  setModel(model: string): void;
  cost(): CostSummary;
  /** Share of the model's context window in use after the last response, 0–100. */
  contextPercent(): number | undefined;
  /** Restores the project to before the last change; undefined when there is nothing to undo. */
  undo(): Promise<{ readonly files: readonly string[]; readonly notices?: readonly string[] } | undefined>;
  /** Checkpoints per user message, for /rewind. */
  rewindPoints(): Promise<readonly CheckpointGroup[]>;
  /** The text of the user message a checkpoint group's `userMessageId` names, when known. */
  userMessageText?(userMessageId: string): string | undefined;
  /** What restoring a checkpoint would change. */
  previewRestore(checkpointId: string): Promise<CheckpointDiff>;
  restore(checkpointId: string): Promise<{ readonly files: readonly string[] }>;
  /** The user messages of the current conversation, oldest first, for /rewind. */
  rewindTargets(): Promise<readonly RewindTarget[]>;
  /**
   * Cuts the conversation back to just before the user message at `turnIndex` (a RewindTarget's):
   * the session continues from the history before it, and the transcript branches there, so
   * --continue and --resume rebuild the rewound conversation. With `restoreCheckpoint`, the files
   * are restored to it first (the state replaced is snapshotted before). Rejects with RewindError
   * while a turn runs or when `turnIndex` is not a user message.
   */
  rewindConversation(
    turnIndex: number,
    options?: { readonly restoreCheckpoint?: string },
  ): Promise<ConversationRewind>;
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
  /** Slash commands from markdown files (user, .claude/commands, .attractor/commands). */
  readonly customCommands?: readonly CustomCommand[];
  /** Custom subagent types the model may spawn. */
  readonly subagentTypes?: readonly SubagentType[];
  readonly skills?: readonly Skill[];
  /**
   * Expands custom command `name` with `args` ($ARGUMENTS, $1…, @file, !`command` through the
   * permission policy) and runs the result as a message, with the command's model for that turn.
   * Rejects with CommandExpansionError when a `!` line is refused or fails (nothing is sent).
   */
  runCustomCommand?(name: string, args: string): Promise<void>;
  /** The instruction files in use (the user's ~/.attractor/AGENTS.md first, even if missing). */
  instructionFiles?(): Promise<readonly string[]>;
}

/** A user message for Runtime.submit: text, or text with images (sent as image parts). */
export type UserMessageInput = string | { readonly text: string; readonly images?: readonly ImageData[] };

/** How a `!command` ended: refused by the permission policy, or run (whatever its exit code). */
export type UserCommandResult =
  | { readonly kind: "denied"; readonly message: string }
  | {
      readonly kind: "ran";
      readonly output: string;
      readonly exitCode: number | null;
      readonly timedOut: boolean;
    };
