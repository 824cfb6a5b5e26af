import { defaultModel } from "@attractor/llm";
import { describe, expect, it } from "vitest";
import { ConfigurationError, NoProviderError, resolveModelChoice } from "../src/runtime/index.js";

const ALL_KEYS = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", GEMINI_API_KEY: "g" };

describe("provider and model resolution", () => {
  it("picks the first provider with a key, in the order Anthropic, OpenAI, Gemini, with its catalog default", () => {
    expect(resolveModelChoice({}, {}, ALL_KEYS)).toEqual({
      provider: "anthropic",
      model: defaultModel("anthropic")?.id,
    });
    expect(resolveModelChoice({}, {}, { OPENAI_API_KEY: "o", GEMINI_API_KEY: "g" }).provider).toBe("openai");
    expect(resolveModelChoice({}, {}, { GOOGLE_API_KEY: "g" })).toEqual({
      provider: "gemini",
      model: defaultModel("gemini")?.id,
    });
    expect(resolveModelChoice({}, {}, { ANTHROPIC_API_KEY: "  ", OPENAI_API_KEY: "o" }).provider).toBe(
      "openai",
    );
  });

  it("lets flags win over settings, and settings over the environment", () => {
    const settings = { provider: "openai", model: "gpt-5-mini" };
    expect(resolveModelChoice({}, settings, ALL_KEYS)).toEqual({ provider: "openai", model: "gpt-5-mini" });
    expect(resolveModelChoice({ model: "gpt-5.2" }, settings, ALL_KEYS)).toEqual({
      provider: "openai",
      model: "gpt-5.2",
    });
    // A provider switch by flag drops the settings' model, which belongs to the other provider.
    expect(resolveModelChoice({ provider: "gemini" }, settings, ALL_KEYS)).toEqual({
      provider: "gemini",
      model: defaultModel("gemini")?.id,
    });
  });

  it("infers the provider of a catalog model and names its missing key", () => {
    expect(resolveModelChoice({ model: "gemini-2.5-flash" }, {}, ALL_KEYS).provider).toBe("gemini");
    expect(() => resolveModelChoice({ model: "gpt-5.2" }, {}, { ANTHROPIC_API_KEY: "a" })).toThrow(
      "The openai provider needs an API key: set OPENAI_API_KEY.",
    );
    expect(() => resolveModelChoice({ provider: "anthropic", model: "gpt-5.2" }, {}, ALL_KEYS)).toThrow(
      /belongs to openai/,
    );
  });

  it("uses an OpenAI-compatible server from the flag, settings or environment, and requires a model for it", () => {
    expect(
      resolveModelChoice(
        { provider: "openai-compatible", model: "qwen3:8b", baseUrl: "http://localhost:11434/v1" },
        {},
        {},
      ),
    ).toEqual({ provider: "openai-compatible", model: "qwen3:8b", baseUrl: "http://localhost:11434/v1" });
    expect(
      resolveModelChoice({ model: "llama3" }, {}, { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:8080/v1" }),
    ).toEqual({ provider: "openai-compatible", model: "llama3", baseUrl: "http://127.0.0.1:8080/v1" });
    expect(() =>
      resolveModelChoice(
        { provider: "openai-compatible" },
        {},
        { OPENAI_COMPATIBLE_BASE_URL: "http://x/v1" },
      ),
    ).toThrow(/needs a model name/);
    expect(() => resolveModelChoice({ provider: "openai-compatible", model: "m" }, {}, {})).toThrow(
      /--base-url/,
    );
  });

  it("passes a base URL on to keyed providers", () => {
    expect(
      resolveModelChoice({ baseUrl: "http://proxy:8080" }, {}, { ANTHROPIC_API_KEY: "a" }),
    ).toMatchObject({
      provider: "anthropic",
      baseUrl: "http://proxy:8080",
    });
  });

  it("fails with one message naming every variable when nothing is configured", () => {
    let error: unknown;
    try {
      resolveModelChoice({}, {}, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NoProviderError);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as NoProviderError).variables).toEqual([
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
      "OPENAI_COMPATIBLE_BASE_URL",
    ]);
    expect(() => resolveModelChoice({ provider: "mistral" }, {}, ALL_KEYS)).toThrow(
      'Unknown provider "mistral" (--provider); choose one of anthropic, openai, gemini, openai-compatible.',
    );
  });
});
