export * from "./git-read.js";
export * from "./guarded-round.js";
export * from "./prompts.js";
export * from "./read-only.js";
