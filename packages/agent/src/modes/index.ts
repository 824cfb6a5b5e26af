export * from "./git-read.js";

export * from "./prompts.js";
export * from "./read-only.js";
