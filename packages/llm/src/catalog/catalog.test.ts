import { describe, expect, it } from "vitest";
import { defaultModel, estimateCost, getLatestModel, getModelInfo, listModels } from "./index.js";

describe("model catalog", () => {
  it("knows the current models of each provider, with the spec's context windows", () => {
    for (const id of [
      "claude-fable-5-2",
      "claude-opus-5-5",
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
      "claude-opus-4-6",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "gpt-6-astra",
      "gpt-6.2-sol",
      "gpt-6-luna",
      "gpt-5.2",
      "gpt-5.2-mini",
      "gpt-5.2-codex",
      "gemini-3.1-pro-preview",
      "gemini-3.6-flash",
      "gemini-3-flash-preview",
    ]) {
      const info = getModelInfo(id);
      expect(info?.id, id).toBe(id);
      expect(info?.supportsTools && info.supportsVision && info.supportsReasoning, id).toBe(true);
    }
    expect(getModelInfo("claude-sonnet-4-5")?.contextWindow).toBe(200_000);
    expect(getModelInfo("claude-sonnet-5-5")?.contextWindow).toBe(1_000_000);
    expect(getModelInfo("gpt-6.2-sol")?.contextWindow).toBe(1_050_000);
    expect(getModelInfo("gpt-5.2-codex")?.contextWindow).toBe(1_047_576);
    expect(getModelInfo("gemini-3-flash-preview")?.contextWindow).toBe(1_048_576);
  });

  it("finds models by alias and returns undefined for unknown ids", () => {
    expect(getModelInfo("claude-sonnet-4-5-20250929")?.id).toBe("claude-sonnet-4-5");
    // The family shorthands follow the current line-up.
    expect(getModelInfo("sonnet")?.id).toBe("claude-sonnet-5-5");
    expect(getModelInfo("opus")?.id).toBe("claude-opus-5-5");
    expect(getModelInfo("haiku")?.id).toBe("claude-haiku-5-5");
    expect(getModelInfo("nonexistent-model-xyz")).toBeUndefined();
  });

  it("has unique ids and aliases, and a known provider for every model", () => {
    const names = listModels().flatMap((m) => [m.id, ...m.aliases]);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(listModels().map((m) => m.provider))).toEqual(new Set(["anthropic", "openai", "gemini"]));
  });

  it("lists by provider, picks the latest and the default per provider", () => {
    const anthropic = listModels("anthropic");
    expect(anthropic.length).toBeGreaterThanOrEqual(3);
    expect(anthropic.every((m) => m.provider === "anthropic")).toBe(true);
    expect(listModels("nobody")).toEqual([]);
    expect(getLatestModel("anthropic")?.id).toBe("claude-fable-5-2");
    expect(getLatestModel("openai")?.id).toBe("gpt-6-astra");
    expect(getLatestModel("gemini")?.id).toBe("gemini-3.1-pro-preview");
    expect(getLatestModel("openai", "reasoning")?.supportsReasoning).toBe(true);
    expect(getLatestModel("nobody")).toBeUndefined();
    expect(defaultModel("anthropic")?.id).toBe("claude-sonnet-5-5");
    expect(defaultModel("openai")?.id).toBe("gpt-6.2-sol");
    expect(defaultModel("gemini")?.id).toBe("gemini-3.1-pro-preview");
    for (const provider of ["anthropic", "openai", "gemini"]) {
      expect(
        listModels(provider).filter((m) => m.default === true),
        provider,
      ).toHaveLength(1);
    }
    expect(defaultModel("openai-compatible")).toBeUndefined();
  });

  it("prices cache reads, cache writes and the rest of the input separately", () => {
    // claude-sonnet-4-5: $3 input, $15 output, $0.30 cache read, $3.75 cache write per million.
    const cost = estimateCost("claude-sonnet-4-5", {
      inputTokens: 1_000_000 + 2_000_000 + 400_000,
      cacheReadTokens: 2_000_000,
      cacheWriteTokens: 400_000,
      outputTokens: 100_000,
      reasoningTokens: 50_000,
      totalTokens: 3_500_000,
    });
    expect(cost).toBeCloseTo(3 + 0.6 + 1.5 + 1.5, 10);
    // No cache-write price (OpenAI): writes are priced as input.
    expect(
      estimateCost("gpt-5.2", {
        inputTokens: 1_000_000,
        cacheWriteTokens: 1_000_000,
        outputTokens: 0,
        totalTokens: 0,
      }),
    ).toBeCloseTo(1.75, 10);
    expect(estimateCost("by-alias-too", { inputTokens: 1, outputTokens: 1, totalTokens: 2 })).toBeUndefined();
    // claude-opus-5-5, reached by its alias: $20 output per million.
    expect(estimateCost("opus", { inputTokens: 0, outputTokens: 1_000_000, totalTokens: 0 })).toBeCloseTo(
      20,
      10,
    );
  });
});
