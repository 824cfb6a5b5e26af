export * from "./catalog/index.js";
// Modules below are added as they land; keep one export line each.
export * from "./client.js";
export * from "./default-client.js";
export * from "./errors.js";
export * from "./generate.js";
export * from "./middleware.js";
export type { AdapterOptions, ProviderAdapter } from "./providers/adapter.js";
export * from "./providers/anthropic/index.js";
export * from "./providers/gemini/index.js";
export * from "./providers/openai/index.js";
export * from "./providers/openai-compatible/index.js";
export { preloadProvider } from "./providers/preload.js";
export { isStrictCompatible } from "./providers/shared/strict-schema.js";
export * from "./retry.js";
export * from "./stream/index.js";
export * from "./types/index.js";
