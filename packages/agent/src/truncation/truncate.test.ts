import { describe, expect, it } from "vitest";
import { headTailMarker, tailMarker, truncateToolOutput } from "./truncate.js";

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

  // The spec's table (§5.2): tool, max characters, mode, max lines.
  it.each([
    ["read_file", 50_000, "head_tail", undefined],
    ["shell", 30_000, "head_tail", 256],
    ["grep", 20_000, "tail", 200],
    ["glob", 20_000, "tail", 500],
    ["edit_file", 10_000, "tail", undefined],
    ["apply_patch", 10_000, "tail", undefined],
    ["write_file", 1_000, "tail", undefined],
    ["spawn_agent", 20_000, "head_tail", undefined],
  ] as const)("%s: %i characters, %s, line limit %s", (tool, maxChars, mode, maxLines) => {
    const exact = "c".repeat(maxChars);
    expect(truncateToolOutput(exact, tool)).toBe(exact);
    const over = `${"h".repeat(maxChars)}t`;
    const out = truncateToolOutput(over, tool);
    if (mode === "tail") {
      expect(out).toBe(`${tailMarker(1)}${"h".repeat(maxChars - 1)}t`);
    } else {
      const half = maxChars / 2;
      expect(out).toBe(`${"h".repeat(half)}${headTailMarker(1)}${"h".repeat(half - 1)}t`);
    }
    // 600 empty lines: under every character limit, over every line limit.
    const lines = "\n".repeat(599);
    const cut = truncateToolOutput(lines, tool);
    if (maxLines === undefined) expect(cut).toBe(lines);
    else {
      const kept = cut.split("\n");
      expect(kept).toHaveLength(maxLines + 1);
      expect(kept[maxLines / 2]).toBe(`[... ${600 - maxLines} lines omitted ...]`);
    }
  });

  it("reports the true lines and characters removed when both limits apply (head_tail)", () => {
    const output = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join("\n");
    const out = truncateToolOutput(output, "shell");
    const kept = out.split("\n");
    expect(kept.slice(0, 128)).toEqual(Array.from({ length: 128 }, (_, i) => `line ${i}`));
    expect(kept[128]).toBe("[... 99744 lines omitted ...]");
    const head = kept.slice(0, 128).join("\n");
    const tail = kept.slice(-128).join("\n");
    expect(kept[129]).toBe(
      `[WARNING: Tool output was truncated. ${output.length - head.length - tail.length} characters were removed from the middle. The full output is available in the event stream. If you need to see specific parts, re-run the tool with more targeted parameters.]`,
    );
    expect(kept.slice(-128)).toEqual(Array.from({ length: 128 }, (_, i) => `line ${99_872 + i}`));
    expect(kept).toHaveLength(128 + 3 + 128);
  });

  it("reports the true lines and characters removed when both limits apply (tail)", () => {
    const output = Array.from({ length: 50_000 }, (_, i) => `src/f${i}.ts:1:match`).join("\n");
    const out = truncateToolOutput(output, "grep");
    const kept = out.split("\n");
    const shown = kept.slice(3).join("\n");
    expect(kept[0]).toBe(
      `[WARNING: Tool output was truncated. First ${output.length - shown.length} characters were removed. The full output is available in the event stream.]`,
    );
    expect(kept[2]).toBe("[... 49800 lines omitted ...]");
    expect(kept.slice(3)).toEqual(Array.from({ length: 200 }, (_, i) => `src/f${49_800 + i}.ts:1:match`));
  });

  it("takes character and line overrides from the config, per tool", () => {
    const config = { toolOutputLimits: { shell: 10 }, toolLineLimits: { shell: 2, read_file: 3 } };
    // Characters first; the marker's own lines do not trigger the line limit.
    expect(truncateToolOutput("0123456789abc", "shell", config)).toBe(`01234${headTailMarker(3)}89abc`);
    expect(truncateToolOutput("1\n2\n3\n4\n5", "read_file", config)).toBe(
      "1\n[... 2 lines omitted ...]\n4\n5",
    );
    expect(truncateToolOutput("1\n2\n3\n4\n5", "grep", config)).toBe("1\n2\n3\n4\n5");
  });

  it("uses a default for unknown tools", () => {
    const out = truncateToolOutput("q".repeat(40_000), "my_custom_tool");
    expect(out).toContain("10000 characters were removed from the middle");
  });
});
