import type { GoogleGenAI } from "@google/genai";

type Sdk = typeof import("@google/genai");

let loading: Promise<Sdk> | undefined;

/** Loads @google/genai once, on first use, so processes that never call Gemini never load it. */
export function loadGeminiSdk(): Promise<Sdk> {
  loading ??= import("@google/genai").catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

export interface ClientSettings {
  readonly apiKey: string;
  readonly baseUrl?: string;
  readonly apiVersion?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A Gemini Developer API client: never Vertex, whatever GOOGLE_GENAI_USE_VERTEXAI says, and no
 * retryOptions, which is the SDK's only path to p-retry (retrying is the caller's policy).
 */
export async function createGeminiClient(settings: ClientSettings): Promise<GoogleGenAI> {
  const { GoogleGenAI } = await loadGeminiSdk();
  return new GoogleGenAI({
    apiKey: settings.apiKey,
    vertexai: false,
    ...(settings.apiVersion !== undefined && { apiVersion: settings.apiVersion }),
    httpOptions: {
      ...(settings.baseUrl !== undefined && { baseUrl: settings.baseUrl }),
      ...(settings.apiVersion !== undefined && { apiVersion: settings.apiVersion }),
      ...(settings.headers !== undefined && { headers: { ...settings.headers } }),
    },
  });
}
