import type { Runtime } from "@attractor/runtime";
import type { CheckpointFileChange } from "@attractor/runtime/checkpoints";

/** How a line of command output is coloured. */
export type Tone = "info" | "success" | "warning" | "error";

/** What a command prints into the transcript. */
export type OutputBlock =
  | { readonly kind: "text"; readonly tone: Tone; readonly text: string }
  | {
      readonly kind: "list";
      readonly title: string;
      readonly rows: readonly { readonly label: string; readonly detail?: string }[];
    }
  | {
      readonly kind: "diff";
      readonly title: string;
      readonly files: readonly CheckpointFileChange[];
      readonly patch: string;
      readonly truncated: boolean;
    };

/** One entry of a picker. */
export interface Choice<T> {
  readonly label: string;
  readonly detail?: string;
  readonly value: T;
  /** More about the choice, read when the user expands it in the picker (→): lines of text. */
  readonly preview?: () => Promise<readonly string[]>;
}

/** What a command may do to the screen besides the runtime: print, ask, clear, exit. */
export interface CommandHost {
  show(block: OutputBlock): void;
  /** Shows a picker (highlighting `initialIndex`, else the first); undefined when the user cancels (Esc). */
  choose<T>(
    title: string,
    choices: readonly Choice<T>[],
    options?: { readonly initialIndex?: number },
  ): Promise<T | undefined>;
  /** Asks a yes/no question; false when the user cancels. */
  confirm(question: string): Promise<boolean>;
  /**
   * Erases the printed transcript; with `replay`, prints the current session's history again
   * (resume): its latest items, or with `whole`, all of it.
   */
  resetScreen(replay: boolean, options?: { readonly whole?: boolean }): void;
  /** Ends the interactive program. */
  exit(): void;
  /** Sends text to the model as the user's message, as if typed (never read as a command). */
  send?(text: string): void;
  /** Writes control bytes to the terminal as they are (OSC 52 for the clipboard; interactive only). */
  writeToTerminal?(bytes: string): void;
  /** Opens a file in the user's $EDITOR and resolves when the editor exits (interactive only). */
  editFile?(path: string): Promise<void>;
}

/** What a command runs against. */
export interface CommandContext {
  readonly runtime: Runtime;
  readonly host: CommandHost;
  /** True while a turn is running. */
  readonly busy: boolean;
}

/** One slash command. */
export interface SlashCommand {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Argument synopsis for /help, e.g. "<mode>". */
  readonly args?: string;
  readonly summary: string;
  /** Refused while a turn runs (it changes files or the session under the running turn). */
  readonly idleOnly?: boolean;
  run(context: CommandContext, args: string): Promise<void>;
}
