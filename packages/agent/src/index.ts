export {};
export * from "./prompted/index.js";
export * from "./types/index.js";
export * from "./session/index.js";
export * from "./prompts/index.js";
export * from "./profiles/index.js";
export * from "./subagent/index.js";
export * from "./environment/index.js";
