// Test fixtures for code built on @attractor/llm: an HTTP server on 127.0.0.1 that speaks each
// wire protocol, and reply builders shaped after each provider's documented stream.
export * from "./anthropic-messages.js";
export * from "./gemini-generate-content.js";
export * from "./openai-compatible-chat.js";
export * from "./openai-responses.js";
export * from "./spec-validation.js";
export * from "./wire-server.js";
