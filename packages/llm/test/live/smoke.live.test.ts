import { describe, expect, it } from "vitest";
import {
  Client,
  generate,
  generateObject,
  getLatestModel,
  NotFoundError,
  stream,
  tool,
  userMessage,
} from "../../src/index.js";

// The unified LLM spec's smoke test (§8.10), against the real APIs. Each provider's block runs
// only when its key is set; without keys everything here is skipped.

const env = process.env;
const keys: Record<string, string | undefined> = {
  anthropic: env.ANTHROPIC_API_KEY,
  openai: env.OPENAI_API_KEY,
  gemini: env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY,
};
const client = Client.fromEnv(env);
const TIMEOUT = 120_000;

// A 1×1 PNG, sent as bytes.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: ({ city }: { city: string }) => `${city}: 18°C, partly cloudy`,
});

for (const provider of ["anthropic", "openai", "gemini"] as const) {
  describe.skipIf(!keys[provider])(`smoke test: ${provider} (live)`, () => {
    const model = getLatestModel(provider)?.id ?? "";

    it(
      "generates a sentence with usage and a stop finish",
      async () => {
        const result = await generate({
          client,
          provider,
          model,
          prompt: "Say hello in one sentence.",
          maxTokens: 100,
          ...(provider === "openai" && { reasoningEffort: "low" as const }),
        });
        expect(result.text.trim()).not.toBe("");
        expect(result.usage.inputTokens).toBeGreaterThan(0);
        expect(result.usage.outputTokens).toBeGreaterThan(0);
        expect(result.finishReason.reason).toBe("stop");
      },
      TIMEOUT,
    );

    it(
      "streams text whose deltas join to the response text",
      async () => {
        const s = stream({ client, provider, model, prompt: "Write a haiku." });
        let text = "";
        for await (const delta of s.textStream) text += delta;
        const response = await s.response();
        expect(text).not.toBe("");
        expect((await s.result()).text).toBe(text);
        expect(response.provider).toBe(provider);
      },
      TIMEOUT,
    );

    it(
      "runs the weather tool for two cities and answers about both",
      async () => {
        const result = await generate({
          client,
          provider,
          model,
          prompt: "What is the weather in San Francisco and New York?",
          tools: [weather],
          maxToolRounds: 3,
        });
        expect(result.steps.length).toBeGreaterThanOrEqual(2);
        expect(result.text).toMatch(/San Francisco/i);
        expect(result.text).toMatch(/New York/i);
      },
      TIMEOUT,
    );

    it(
      "describes an image sent as bytes",
      async () => {
        const result = await generate({
          client,
          provider,
          model,
          messages: [
            userMessage([
              { kind: "text", text: "Describe this image in a few words." },
              { kind: "image", image: { data: new Uint8Array(PNG), mediaType: "image/png" } },
            ]),
          ],
          maxTokens: 300,
        });
        expect(result.text.trim()).not.toBe("");
      },
      TIMEOUT,
    );

    it(
      "extracts a structured object",
      async () => {
        const { output } = await generateObject<{ name: string; age: number }>({
          client,
          provider,
          model,
          prompt: "Extract: Alice is 30 years old",
          schema: {
            type: "object",
            properties: { name: { type: "string" }, age: { type: "integer" } },
            required: ["name", "age"],
            additionalProperties: false,
          },
        });
        expect(output).toEqual({ name: "Alice", age: 30 });
      },
      TIMEOUT,
    );

    it.runIf(provider === "openai")(
      "reports an unknown model as NotFoundError",
      async () => {
        const err = await generate({ client, provider, model: "nonexistent-model-xyz", prompt: "hi" }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(NotFoundError);
      },
      TIMEOUT,
    );
  });
}
