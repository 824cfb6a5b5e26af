/** How character truncation keeps text: both ends, or only the end. */
export type TruncationMode = "head_tail" | "tail";

/** The limits applied to one tool's output before the model sees it. */
export interface ToolOutputLimit {
  readonly maxChars: number;
  readonly mode: TruncationMode;
  /** Applied after the character limit; undefined = no line limit. */
  readonly maxLines?: number;
}

/**
 * The spec's table (read_file … spawn_agent), plus choices for tools it leaves open: listings
 * keep both ends like reads, subagent replies keep both ends, close_agent keeps its last words.
 */
export const DEFAULT_TOOL_LIMITS: Readonly<Record<string, ToolOutputLimit>> = {
  read_file: { maxChars: 50_000, mode: "head_tail" },
  read_many_files: { maxChars: 50_000, mode: "head_tail" },
  shell: { maxChars: 30_000, mode: "head_tail", maxLines: 256 },
  grep: { maxChars: 20_000, mode: "tail", maxLines: 200 },
  glob: { maxChars: 20_000, mode: "tail", maxLines: 500 },
  list_dir: { maxChars: 20_000, mode: "head_tail", maxLines: 500 },
  edit_file: { maxChars: 10_000, mode: "tail" },
  apply_patch: { maxChars: 10_000, mode: "tail" },
  write_file: { maxChars: 1_000, mode: "tail" },
  spawn_agent: { maxChars: 20_000, mode: "head_tail" },
  send_input: { maxChars: 20_000, mode: "head_tail" },
  wait: { maxChars: 20_000, mode: "head_tail" },
  close_agent: { maxChars: 2_000, mode: "tail" },
};

/** The limit for tools not in the table (custom tools). */
export const DEFAULT_UNKNOWN_TOOL_LIMIT: ToolOutputLimit = { maxChars: 30_000, mode: "head_tail" };

/** Per-tool overrides, as SessionConfig carries them. */
export interface TruncationConfig {
  readonly toolOutputLimits?: Readonly<Record<string, number>>;
  readonly toolLineLimits?: Readonly<Record<string, number>>;
}

/** The effective limit for a tool: its default with the config's overrides applied. */
export function limitFor(toolName: string, config?: TruncationConfig): ToolOutputLimit {
  const base = DEFAULT_TOOL_LIMITS[toolName] ?? DEFAULT_UNKNOWN_TOOL_LIMIT;
  const chars = config?.toolOutputLimits?.[toolName];
  const lines = config?.toolLineLimits?.[toolName];
  const maxLines = lines ?? base.maxLines;
  return {
    maxChars: chars ?? base.maxChars,
    mode: base.mode,
    ...(maxLines !== undefined && { maxLines }),
  };
}
