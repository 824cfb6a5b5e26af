import { describe, expect, it } from "vitest";
import { canonicalJson, detectLoop, LoopDetector, toolCallSignature } from "./loop-detection.js";

const seq = (pattern: string, n: number) => Array.from({ length: n }, (_, i) => pattern[i % pattern.length]!);

describe("loop detection", () => {
  it("finds cycles of length 1, 2 and 3 in a window of 10", () => {
    expect(detectLoop(seq("a", 10), 10)).toBe(1);
    expect(detectLoop(seq("ab", 10), 10)).toBe(2);
    expect(detectLoop(seq("abc", 10), 10)).toBe(3);
  });

  it("ignores short histories, longer cycles and broken patterns", () => {
    expect(detectLoop(seq("a", 9), 10)).toBeUndefined();
    expect(detectLoop(seq("abcd", 12), 10)).toBeUndefined();
    expect(detectLoop([...seq("ab", 9), "c"], 10)).toBeUndefined();
  });

  it("looks only at the last window of calls", () => {
    expect(detectLoop(["x", "y", "z", ...seq("ab", 10)], 10)).toBe(2);
  });

  it("signs calls by name and canonical arguments", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(toolCallSignature("read", { a: 1, b: 2 })).toBe(toolCallSignature("read", { b: 2, a: 1 }));
    expect(toolCallSignature("read", { a: 1 })).not.toBe(toolCallSignature("write", { a: 1 }));
    // Long arguments are signed by a hash: still equal for equal arguments in any order, and
    // different for arguments that differ anywhere.
    const long = "x".repeat(2000);
    expect(toolCallSignature("write", { text: long, path: "a" })).toBe(
      toolCallSignature("write", { path: "a", text: long }),
    );
    expect(toolCallSignature("write", { path: "a", text: long })).not.toBe(
      toolCallSignature("write", { path: "a", text: `${long}y` }),
    );
    expect(toolCallSignature("write", { path: "a", text: long }).length).toBeLessThan(100);
  });

  it("warns once per full window of repetition", () => {
    const d = new LoopDetector(4);
    const hits = Array.from({ length: 8 }, () => d.record("x", {}));
    expect(hits.map((h) => h ?? 0)).toEqual([0, 0, 0, 1, 0, 0, 0, 1]);
  });
});
