export * from "./history.js";
export * from "./instructions.js";
export * from "./json-repair.js";
export * from "./parser.js";
export * from "./stream-splitter.js";
export * from "./text-protocol.js";
export * from "./tool-calling.js";
export * from "./unreadable.js";
