import { loadGeminiSdk } from "./gemini/sdk.js";
import { loadOpenAISdk } from "./openai/transport.js";

/**
 * Loads what the first request to `provider` ("anthropic", "openai", "openai-compatible",
 * "gemini") needs, its SDK and the platform's fetch, ahead of that request, so a host can load
 * them while it does other start-up work; resolves once loaded. Failures are not reported here:
 * the first request meets them again and reports them. Unknown providers load nothing.
 */
export async function preloadProvider(provider: string): Promise<void> {
  // Node's fetch implementation (its bundled undici) is compiled on first access of one of its
  // classes; `fetch` itself is a wrapper that loads it only when called. The SDKs build their
  // headers with the global Headers, except where a build compiled the Anthropic and OpenAI SDKs
  // with classes of their own (the command's headless bundle defines this variable so): their
  // requests never need it. Gemini's SDK uses the globals everywhere.
  const ownHeaders = process.env.ATTRACTOR_SDK_OWN_HEADERS === "1" && provider !== "gemini";
  if (!ownHeaders) void globalThis.Headers;
  try {
    switch (provider) {
      case "anthropic":
        await import("@anthropic-ai/sdk");
        break;
      case "openai":
      case "openai-compatible":
        await loadOpenAISdk();
        break;
      case "gemini":
        await loadGeminiSdk();
        break;
    }
  } catch {}
}
