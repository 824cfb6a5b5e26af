export * from "./limits.js";
export * from "./truncate.js";
