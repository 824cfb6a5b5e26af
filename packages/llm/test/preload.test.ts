import { describe, expect, it, vi } from "vitest";
import { preloadProvider } from "../src/index.js";

// Counts the first import of each vendor SDK (vitest runs a mock factory on first import only).
const loads = vi.hoisted(() => ({ openai: 0, anthropic: 0, gemini: 0 }));
vi.mock("openai", async (importOriginal) => {
  loads.openai++;
  return await importOriginal();
});
vi.mock("@anthropic-ai/sdk", async (importOriginal) => {
  loads.anthropic++;
  return await importOriginal();
});
vi.mock("@google/genai", async (importOriginal) => {
  loads.gemini++;
  return await importOriginal();
});

describe("preloadProvider", () => {
  it("loads the named provider's SDK and no other, once", async () => {
    await preloadProvider("anthropic");
    expect(loads).toEqual({ openai: 0, anthropic: 1, gemini: 0 });
    await preloadProvider("openai-compatible");
    await preloadProvider("openai");
    expect(loads).toEqual({ openai: 1, anthropic: 1, gemini: 0 });
    await preloadProvider("anthropic");
    expect(loads.anthropic).toBe(1);
  });

  it("loads nothing for a provider it does not know, and does not fail", async () => {
    await expect(preloadProvider("no-such-provider")).resolves.toBeUndefined();
    expect(loads.gemini).toBe(0);
  });
});
