export { AnthropicAdapter, type AnthropicAdapterOptions } from "./adapter.js";
export { applyCacheBreakpoints, MAX_CACHE_BREAKPOINTS } from "./cache.js";
export { DEFAULT_MAX_TOKENS, maxOutputTokens, THINKING_BUDGETS } from "./models.js";
export { buildMessagesRequest, type MessagesRequest } from "./request.js";
