export * from "./assistant-stream.js";
export * from "./context-usage.js";
export * from "./event-stream.js";
export * from "./history.js";
export * from "./loop-detection.js";
export * from "./provider-errors.js";
export * from "./session.js";
