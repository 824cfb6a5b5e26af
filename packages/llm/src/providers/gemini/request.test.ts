import { describe, expect, it } from "vitest";
import { splitBaseUrl } from "./adapter.js";
import { isSyntheticCallId, thinkingConfigFor } from "./request.js";

describe("thinkingConfigFor", () => {
  it("uses thinking levels on Gemini 3, within what Pro accepts", () => {
    expect(thinkingConfigFor("gemini-3-flash-preview", "minimal")).toEqual({
      includeThoughts: true,
      thinkingLevel: "MINIMAL",
    });
    expect(thinkingConfigFor("gemini-3-pro-preview", "minimal")?.thinkingLevel).toBe("LOW");
    expect(thinkingConfigFor("gemini-3-pro-preview", "medium")?.thinkingLevel).toBe("HIGH");
    expect(thinkingConfigFor("gemini-3.1-pro-preview", "medium")?.thinkingLevel).toBe("MEDIUM");
    expect(thinkingConfigFor("gemini-3-pro-preview", "xhigh")?.thinkingLevel).toBe("HIGH");
  });

  it("uses token budgets before Gemini 3, and only asks for thoughts from thinking models", () => {
    expect(thinkingConfigFor("gemini-2.5-flash", "minimal")).toEqual({
      includeThoughts: false,
      thinkingBudget: 0,
    });
    expect(thinkingConfigFor("gemini-2.5-pro", "minimal")?.thinkingBudget).toBe(128);
    expect(thinkingConfigFor("gemini-2.5-flash", "xhigh")?.thinkingBudget).toBe(24_576);
    expect(thinkingConfigFor("gemini-2.5-pro", "xhigh")?.thinkingBudget).toBe(32_768);
    expect(thinkingConfigFor("gemini-2.5-flash", undefined)).toEqual({ includeThoughts: true });
    expect(thinkingConfigFor("gemini-2.0-flash", undefined)).toBeUndefined();
  });
});

describe("splitBaseUrl and call ids", () => {
  it("moves a trailing API version out of the base URL", () => {
    expect(splitBaseUrl("http://h:1/v1beta")).toEqual({ baseUrl: "http://h:1/", apiVersion: "v1beta" });
    expect(splitBaseUrl("http://h:1/proxy/v1/")).toEqual({ baseUrl: "http://h:1/proxy/", apiVersion: "v1" });
    expect(splitBaseUrl("http://h:1/proxy")).toEqual({ baseUrl: "http://h:1/proxy" });
  });

  it("recognises only the ids it synthesizes", () => {
    expect(isSyntheticCallId("call_123e4567-e89b-12d3-a456-426614174000")).toBe(true);
    expect(isSyntheticCallId("fc-7")).toBe(false);
  });
});
