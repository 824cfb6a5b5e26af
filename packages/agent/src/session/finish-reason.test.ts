import type { Response } from "@attractor/llm";
import { describe, expect, it } from "vitest";
import { classifyFinish } from "./finish-reason.js";

const response = (reason: Response["finishReason"]["reason"], raw?: string, text = "x"): Response => ({
  id: "r",
  model: "m",
  provider: "p",
  message: { role: "assistant", content: text === "" ? [] : [{ kind: "text", text }] },
  finishReason: { reason, ...(raw !== undefined && { raw }) },
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  warnings: [],
});

describe("classifyFinish", () => {
  it("reads each provider's abnormal finishes", () => {
    expect(classifyFinish(response("stop", "end_turn")).kind).toBe("normal");
    expect(classifyFinish(response("tool_calls", "tool_use")).kind).toBe("normal");
    expect(classifyFinish(response("error", "MALFORMED_FUNCTION_CALL", ""))).toEqual({
      kind: "malformed",
      raw: "MALFORMED_FUNCTION_CALL",
    });
    expect(classifyFinish(response("length", "max_output_tokens"))).toEqual({
      kind: "truncated",
      raw: "max_output_tokens",
    });
    expect(classifyFinish(response("content_filter", "refusal"))).toEqual({
      kind: "refused",
      raw: "refusal",
    });
    expect(classifyFinish(response("other", "pause_turn")).kind).toBe("paused");
    expect(classifyFinish(response("error", "failed")).kind).toBe("failed");
  });

  it("takes an unknown reason with an answer as normal, and one without anything as a failure", () => {
    expect(classifyFinish(response("other", "LANGUAGE", "Bonjour")).kind).toBe("normal");
    expect(classifyFinish(response("other", "OTHER", ""))).toEqual({ kind: "failed", raw: "OTHER" });
  });
});
