import { describe, expect, it } from "vitest";
import { fromClaudeCodeFields, withClaudeCodeFields } from "../src/customization/claude-code-names.js";

describe("Claude Code's WebFetch fields for hooks", () => {
  it("shows the question as prompt, and takes a hook's rewritten prompt back as the question", () => {
    const args = { url: "https://x.dev", question: "what?" };
    expect(withClaudeCodeFields("web_fetch", args)).toEqual({ ...args, prompt: "what?" });
    expect(fromClaudeCodeFields("web_fetch", { ...args, prompt: "which version?" }, args)).toEqual({
      url: "https://x.dev",
      question: "which version?",
    });
    // Unchanged, the added field is simply dropped.
    expect(fromClaudeCodeFields("web_fetch", { ...args, prompt: "what?" }, args)).toEqual(args);
  });
});
