import { describe, expect, it } from "vitest";
import { truncateToolOutput } from "./truncate.js";

describe("truncateToolOutput", () => {
  it("leaves short output alone", () => {
    expect(truncateToolOutput("hello", "shell")).toBe("hello");
  });

  it("head_tail keeps both halves with the spec's marker", () => {
    const out = truncateToolOutput("a".repeat(60) + "b".repeat(60), "read_file", {
      toolOutputLimits: { read_file: 20 },
    });
    expect(out).toBe(
      `${"a".repeat(10)}\n\n[WARNING: Tool output was truncated. 100 characters were removed from the middle. The full output is available in the event stream. If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n${"b".repeat(10)}`,
    );
  });

  it("tail keeps the end with the spec's marker", () => {
    const out = truncateToolOutput(`${"x".repeat(1500)}END`, "write_file");
    expect(out).toBe(
      `[WARNING: Tool output was truncated. First 503 characters were removed. The full output is available in the event stream.]\n\n${"x".repeat(997)}END`,
    );
  });

  it("applies the line limit after the character limit", () => {
    const lines = Array.from({ length: 300 }, (_, i) => `l${i}`).join("\n");
    const out = truncateToolOutput(lines, "shell");
    const kept = out.split("\n");
    expect(kept.slice(0, 2)).toEqual(["l0", "l1"]);
    expect(kept[128]).toBe("[... 44 lines omitted ...]");
    expect(kept.at(-1)).toBe("l299");
    expect(kept.length).toBe(257);
  });

  it("honours line limit overrides and tools without line limits", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `${i}`).join("\n");
    expect(truncateToolOutput(lines, "grep", { toolLineLimits: { grep: 4 } })).toBe(
      "0\n1\n[... 6 lines omitted ...]\n8\n9",
    );
    expect(truncateToolOutput(lines, "edit_file")).toBe(lines);
  });

  it("never splits a surrogate pair", () => {
    const s = "😀".repeat(100);
    for (const max of [9, 10, 11, 51]) {
      for (const tool of ["read_file", "write_file"]) {
        const out = truncateToolOutput(s, tool, { toolOutputLimits: { [tool]: max } });
        expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      }
    }
  });

  it("handles a 10 MB single line", () => {
    const out = truncateToolOutput("z".repeat(10_000_000), "shell");
    expect(out.length).toBeLessThan(30_400);
    expect(out).toContain("9970000 characters were removed from the middle");
  });

  it("uses a default for unknown tools", () => {
    const out = truncateToolOutput("q".repeat(40_000), "my_custom_tool");
    expect(out).toContain("10000 characters were removed from the middle");
  });
});
