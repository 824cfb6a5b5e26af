export * from "./accumulator.js";
export * from "./idle-timeout.js";
