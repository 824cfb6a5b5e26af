export { GeminiAdapter, type GeminiAdapterOptions } from "./adapter.js";
