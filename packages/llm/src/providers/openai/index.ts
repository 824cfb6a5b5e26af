export { OpenAIAdapter, type OpenAIAdapterOptions } from "./adapter.js";
