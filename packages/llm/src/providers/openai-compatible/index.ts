export { OpenAICompatibleAdapter, type OpenAICompatibleAdapterOptions } from "./adapter.js";
