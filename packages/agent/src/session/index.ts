export * from "./assistant-stream.js";
export * from "./context-usage.js";
export * from "./event-stream.js";
export * from "./finish-reason.js";
export * from "./loop-detection.js";
export * from "./model-stream.js";
export * from "./provider-errors.js";
export * from "./session.js";
export {
  INTERRUPT_GRACE_MS,
  INTERRUPTED_ABANDONED,
  INTERRUPTED_BEFORE_RUN,
  INTERRUPTED_WHILE_RUNNING,
} from "./tool-round.js";
