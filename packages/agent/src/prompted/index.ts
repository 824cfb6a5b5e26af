export * from "./instructions.js";
export * from "./json-repair.js";
export * from "./parser.js";
export * from "./stream-splitter.js";
