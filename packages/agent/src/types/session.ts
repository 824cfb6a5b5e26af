/** The lifecycle states of a Session. */
export const SessionState = {
  IDLE: "idle",
  PROCESSING: "processing",
  /** The model ended its turn with a question for the user. */
  AWAITING_INPUT: "awaiting_input",
  CLOSED: "closed",
} as const;

export type SessionState = (typeof SessionState)[keyof typeof SessionState];

/** The lifecycle states of a subagent. */
export const SubagentStatus = {
  RUNNING: "running",
  COMPLETED: "completed",
  FAILED: "failed",
} as const;

export type SubagentStatus = (typeof SubagentStatus)[keyof typeof SubagentStatus];

/** What `wait` hands back to the parent. */
export interface SubagentResult {
  readonly output: string;
  readonly success: boolean;
  readonly turnsUsed: number;
}
