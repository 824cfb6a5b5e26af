import { describe, expect, it } from "vitest";
import { layoutTable, MIN_COLUMN, wrapCell } from "./table-layout.js";

describe("a table laid out for a width", () => {
  const header = ["Name", "What it does"];
  const rows = [["build", "compiles every package and bundles the command for publishing"]];

  it("keeps natural widths when they fit", () => {
    expect(layoutTable(header, rows, 120)).toEqual({ kind: "grid", widths: [5, 61] });
  });

  it("narrows the widest column to fit, and wraps its cells inside it", () => {
    const layout = layoutTable(header, rows, 40);
    expect(layout.kind).toBe("grid");
    if (layout.kind !== "grid") return;
    expect(layout.widths.reduce((a, b) => a + b, 0) + 3).toBe(40);
    const lines = wrapCell(rows[0]?.[1] ?? "", layout.widths[1] ?? 0);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(layout.widths[1] ?? 0);
    expect(lines.join(" ")).toBe(rows[0]?.[1]);
  });

  it("becomes a list when columns would be narrower than the minimum", () => {
    const many = Array.from({ length: 8 }, (_, i) => `column ${i}`);
    expect(layoutTable(many, [many], 8 * MIN_COLUMN)).toEqual({ kind: "list" });
  });

  it("cuts a word wider than its column", () => {
    expect(wrapCell("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrapCell("日本語の文", 4)).toEqual(["日本", "語の", "文"]);
  });
});
