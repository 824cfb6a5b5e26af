export * from "./anthropic/prompt.js";
export * from "./create-profile.js";
export * from "./gemini/prompt.js";
export * from "./openai/prompt.js";
