// The headless command on finishes that are not success: the exit code and the json result must
// say so, on each provider's wire protocol; a stream cut mid-answer is retried and completes.

import {
  chunkFrames,
  frames,
  messageItem,
  type Reply,
  responseObject,
  sse,
  streamEventsFor,
  streamFrames,
  usage,
} from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import type { HeadlessResult } from "../src/headless/index.js";
import { ALL_PROVIDERS, type Provider, startScriptedModel } from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const fx = headlessFixture();

const WHOLE = { mode: "whole" } as const;
let n = 0;

/** A text answer ending with the provider's raw finish value. */
function answer(provider: Provider, text: string, finish: "stop" | "length" | "refusal"): Reply {
  n++;
  switch (provider) {
    case "anthropic": {
      const raw = { stop: "end_turn", length: "max_tokens", refusal: "refusal" }[finish];
      return {
        kind: "sse",
        frames: frames(streamEventsFor([{ type: "text", text }], raw, { input: 9, output: 9 }, `msg_${n}`)),
        chunking: WHOLE,
      };
    }
    case "openai": {
      const item =
        finish === "refusal"
          ? { ...messageItem(`msg_${n}`, ""), content: [{ type: "refusal", refusal: text }] }
          : messageItem(`msg_${n}`, text);
      const extra =
        finish === "length"
          ? { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
          : {};
      const response = responseObject(`resp_${n}`, [item], usage(9, 9), extra);
      if (finish !== "refusal") return { kind: "sse", frames: streamFrames(response), chunking: WHOLE };
      const ev = (d: Record<string, unknown>) => sse(d, { event: String(d.type) });
      return {
        kind: "sse",
        chunking: WHOLE,
        frames: [
          ev({ type: "response.created", response: { ...response, output: [], status: "in_progress" } }),
          ev({ type: "response.output_item.done", output_index: 0, item }),
          ev({ type: "response.completed", response }),
        ],
      };
    }
    case "gemini": {
      const raw = { stop: "STOP", length: "MAX_TOKENS", refusal: "SAFETY" }[finish];
      return {
        kind: "sse",
        chunking: WHOLE,
        // The text, then the finish in a chunk of its own, as the stream endpoint sends them.
        frames: [
          sse({
            candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }],
            modelVersion: "gemini-3.1-pro-preview",
            responseId: `r${n}`,
          }),
          sse({
            candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: raw, index: 0 }],
            usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 9, totalTokenCount: 18 },
            modelVersion: "gemini-3.1-pro-preview",
            responseId: `r${n}`,
          }),
        ],
      };
    }
    case "openai-compatible": {
      const raw = { stop: "stop", length: "length", refusal: "content_filter" }[finish];
      return {
        kind: "sse",
        frames: chunkFrames({ id: `c${n}`, content: text, finish: raw }),
        chunking: WHOLE,
      };
    }
  }
}

const RAW_REFUSAL: Readonly<Record<Provider, string>> = {
  anthropic: "refusal",
  openai: "refusal",
  gemini: "SAFETY",
  "openai-compatible": "content_filter",
};

async function runJson(provider: Provider, replies: readonly Reply[]) {
  const model = await startScriptedModel(
    provider,
    replies.map((raw) => ({ raw })),
  );
  fx.model = model;
  const result = await fx.run(["-p", "Explain the bug.", "--output-format", "json", ...model.flags()]);
  return {
    code: result.code,
    stderr: result.stderr,
    json: JSON.parse(result.stdout.trim()) as HeadlessResult,
  };
}

describe("headless: abnormal finishes", () => {
  for (const provider of ALL_PROVIDERS) {
    it(`${provider}: a refusal exits 1 with is_error and the provider's reason`, async () => {
      const { code, json } = await runJson(provider, [
        answer(provider, "I can't help with that.", "refusal"),
      ]);
      expect(code).toBe(1);
      expect(json).toMatchObject({ is_error: true, exit_reason: "error", subtype: "error_during_execution" });
      expect(json.error).toMatchObject({ finish_reason: RAW_REFUSAL[provider] });
    });

    it(`${provider}: an answer cut at the output limit is continued, and exits 1 when it stays cut`, async () => {
      const continued = await runJson(provider, [
        answer(provider, "First half,", "length"),
        answer(provider, " second half.", "stop"),
      ]);
      expect(continued.code, continued.stderr).toBe(0);
      expect(continued.json).toMatchObject({ is_error: false, result: "First half, second half." });
      const cut = await runJson(provider, [
        answer(provider, "a", "length"),
        answer(provider, "b", "length"),
        answer(provider, "c", "length"),
      ]);
      expect(cut.code).toBe(1);
      expect(cut.json.is_error).toBe(true);
      expect(cut.json.error?.message).toMatch(/cut at the output limit/);
    });

    it(`${provider}: a stream reset mid-answer is retried and the run succeeds`, async () => {
      const broken = answer(provider, "A long answer that will be cut before its end.", "stop");
      if (broken.kind !== "sse") throw new Error("sse expected");
      const cutAt = Math.max(1, Math.floor(broken.frames.length / 2));
      const { code, stderr, json } = await runJson(provider, [
        { ...broken, cutAfter: cutAt },
        answer(provider, "The whole answer.", "stop"),
      ]);
      expect(code, stderr).toBe(0);
      expect(json).toMatchObject({ is_error: false, result: "The whole answer." });
      // Counted against the request's retries (four by default), as a failed connection is.
      expect(stderr).toMatch(/retrying \(1\/4\) in \d+ ms: .*\(the answer starts again\)/);
    });
  }

  it("gemini: a malformed function call twice exits 1", async () => {
    const malformed: Reply = {
      kind: "sse",
      chunking: WHOLE,
      frames: [
        sse({
          candidates: [{ finishReason: "MALFORMED_FUNCTION_CALL", index: 0 }],
          usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
          modelVersion: "gemini-3.1-pro-preview",
          responseId: "bad",
        }),
      ],
    };
    const { code, json } = await runJson("gemini", [malformed, malformed]);
    expect(code).toBe(1);
    expect(json).toMatchObject({ is_error: true, error: { finish_reason: "MALFORMED_FUNCTION_CALL" } });
  });
});
