import { describe, expect, it } from "vitest";
import { HitsBuilder } from "./grep-collector.js";
import { compileRegex } from "./grep-regex.js";

describe("compileRegex (ripgrep syntax in JavaScript)", () => {
  it.each([
    ["\\w+", "жук", true],
    ["^\\w+$", "straße_2", true],
    ["^\\W+$", "\t !", true],
    ["^\\W+$", "é", false],
    ["\\d", "٣", true],
    ["^\\D+$", "abc", true],
    ["^[[:alpha:]]+$", "abc", true],
    ["^[[:alpha:]]+$", "é", false],
    ["[^[:space:]]", "  x ", true],
    ["[[:digit:][:upper:]]", "aB", true],
    ["(?i)needle", "NEEDLE", true],
    ["(?s)a.b", "a\nb", true],
    ["[]a]", "]", true],
    ["a\\-b\\/c", "a-b/c", true],
  ])("%s on %j → %s", (pattern, text, expected) => {
    expect(compileRegex(pattern, false).test(text)).toBe(expected);
  });

  it("rejects a malformed pattern with InvalidPatternError", () => {
    expect(() => compileRegex("a(b", false)).toThrow(/Invalid pattern "a\(b"/);
  });
});

describe("HitsBuilder", () => {
  it("keeps the first cap matches with their context and only counts the rest", () => {
    const b = new HitsBuilder("/f", 2, 1);
    b.context(1, "c1");
    b.match(2, "m2");
    b.match(3, "m3");
    b.context(4, "c4"); // after-context of the last kept match
    b.context(6, "c6");
    expect(b.saturated).toBe(true);
    for (let n = 7; n < 1_000_007; n++) b.countMatch();
    b.match(1_000_007, "late");
    const hits = b.build();
    expect(hits.count).toBe(1_000_003);
    expect(hits.matches).toEqual([
      { line: 2, text: "m2" },
      { line: 3, text: "m3" },
    ]);
    expect([...hits.lines.keys()]).toEqual([1, 2, 3, 4]);
  });
});
