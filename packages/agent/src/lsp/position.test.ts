import { describe, expect, it } from "vitest";
import { SymbolNotFoundError } from "./errors.js";
import { resolvePosition } from "./position.js";

const text = [
  "import { area } from './a';",
  "const areas = area(1);",
  "",
  "function Area() {",
  "  return area(2);",
  "}",
].join("\n");

describe("resolvePosition", () => {
  it("uses line and character as given, 1-based", () => {
    expect(resolvePosition(text, { path: "f.ts", line: 2, character: 15 })).toEqual({
      line: 1,
      character: 14,
    });
  });

  it("finds the first whole-word occurrence of symbolName", () => {
    // "areas" on line 2 is not a match for "area".
    expect(resolvePosition(text, { path: "f.ts", symbolName: "area" })).toEqual({ line: 0, character: 9 });
  });

  it("prefers the occurrence nearest to line", () => {
    expect(resolvePosition(text, { path: "f.ts", symbolName: "area", line: 5 })).toEqual({
      line: 4,
      character: 9,
    });
  });

  it("falls back to a case-insensitive match, and takes the last part of a qualified name", () => {
    expect(resolvePosition(text, { path: "f.ts", symbolName: "AREAS" })).toEqual({ line: 1, character: 6 });
    expect(resolvePosition(text, { path: "f.ts", symbolName: "Shape.Area" })).toEqual({
      line: 3,
      character: 9,
    });
  });

  it("uses character 0 when only line is given", () => {
    expect(resolvePosition(text, { path: "f.ts", line: 4 })).toEqual({ line: 3, character: 0 });
  });

  it("rejects a missing symbol, a line outside the file, or no position at all", () => {
    expect(() => resolvePosition(text, { path: "f.ts", symbolName: "volume" })).toThrow(
      new SymbolNotFoundError("f.ts", 'Symbol "volume" was not found in f.ts.'),
    );
    expect(() => resolvePosition(text, { path: "f.ts", line: 99 })).toThrow(
      "Line 99 is outside f.ts (6 lines).",
    );
    expect(() => resolvePosition(text, { path: "f.ts" })).toThrow(SymbolNotFoundError);
  });
});
