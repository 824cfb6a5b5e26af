export * from "./compactor.js";
export * from "./prune.js";
export * from "./summary.js";
