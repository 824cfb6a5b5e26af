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
export const SubAgentStatus = {
  RUNNING: "running",
  COMPLETED: "completed",
  FAILED: "failed",
} as const;

export type SubAgentStatus = (typeof SubAgentStatus)[keyof typeof SubAgentStatus];

/** What `wait` hands back to the parent. */
export interface SubAgentResult {
  readonly output: string;
  readonly success: boolean;
  readonly turnsUsed: number;
}
