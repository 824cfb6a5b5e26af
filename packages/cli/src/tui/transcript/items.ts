import type { ToolDetails } from "@attractor/agent";
import type { OutputBlock, Tone } from "../../commands/types.js";

/** A tool call as the transcript keeps it: the call, and the result once it ended. */
export interface ToolCallView {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Streamed output so far (a bounded tail) while running; the whole-output preview after. */
  readonly output: string;
  readonly result?: {
    readonly isError: boolean;
    readonly details?: ToolDetails;
    readonly durationMs: number;
    /** Total lines of the output, of which `output` keeps a preview. */
    readonly outputLines: number;
  };
}

/** A finished piece of the transcript, printed once through Ink's <Static>. */
export type TranscriptItem =
  | { readonly kind: "banner"; readonly id: number; readonly title: string; readonly detail: string }
  | { readonly kind: "user"; readonly id: number; readonly text: string }
  /** A block-aligned piece of an assistant message (Markdown). */
  | { readonly kind: "assistant"; readonly id: number; readonly text: string; readonly first: boolean }
  | { readonly kind: "reasoning"; readonly id: number; readonly text: string }
  | { readonly kind: "tool"; readonly id: number; readonly call: ToolCallView }
  | { readonly kind: "notice"; readonly id: number; readonly tone: Tone; readonly text: string }
  | { readonly kind: "output"; readonly id: number; readonly block: OutputBlock };

/** A TranscriptItem before it gets its id. */
export type NewItem = TranscriptItem extends infer T
  ? T extends { readonly id: number }
    ? Omit<T, "id">
    : never
  : never;
