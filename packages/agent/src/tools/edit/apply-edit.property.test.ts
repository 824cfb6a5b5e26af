import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdit, EditError } from "./apply-edit.js";

// Random files (tabs or spaces, LF or CRLF, with or without a BOM, non-ASCII text) and random
// edits of a few lines, sent with the noise models produce. Whatever the noise, the result is the
// exact intended file or a refusal, never anything else.

type Style = { readonly unit: string; readonly eol: "\n" | "\r\n"; readonly bom: boolean };

const WORDS = [
  "x",
  "total",
  "näive",
  "中文",
  "“q”",
  "a—b",
  '"s"',
  "'c'",
  "\\n",
  "(",
  ")",
  ";",
  "=",
  "+",
  "{",
  "[i]",
];

const styleArb: fc.Arbitrary<Style> = fc.record({
  unit: fc.constantFrom("\t", "  ", "    "),
  eol: fc.constantFrom("\n" as const, "\r\n" as const),
  bom: fc.boolean(),
});

// A line: depth, words, and an id that makes most lines unique (as code mostly is).
const lineArb = fc.record({
  depth: fc.integer({ min: 0, max: 3 }),
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  id: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { freq: 4 }),
  trailing: fc.constantFrom("", "", "", " ", "\t"),
  blank: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

type Line = { depth: number; words: string[]; id: number | null; trailing: string; blank: boolean };

function render(line: Line, unit: string): string {
  if (line.blank) return "";
  const id = line.id === null ? "" : ` v${line.id}`;
  return `${unit.repeat(line.depth)}${line.words.join(" ")}${id}${line.trailing}`;
}

type Noise = "none" | "trailing" | "tabs" | "shift" | "quotes" | "escape" | "numbers" | "stale";

const caseArb = fc.record({
  style: styleArb,
  lines: fc.array(lineArb, { minLength: 3, maxLength: 30 }),
  at: fc.nat(),
  length: fc.integer({ min: 1, max: 4 }),
  change: fc.constantFrom("modify", "insert", "delete"),
  noise: fc.constantFrom<Noise>("none", "trailing", "tabs", "shift", "quotes", "escape", "numbers", "stale"),
});

describe("applyEdit over random files and noisy edits", () => {
  it("gives the intended file or refuses", { timeout: 120_000 }, () => {
    const tally = { applied: 0, refused: 0 };
    fc.assert(
      fc.property(caseArb, ({ style, lines, at, length, change, noise }) => {
        // Ids unique within the file, so that only the edited block holds the edit's text.
        const seen = new Set<number>();
        const file = (lines as Line[]).map((l) => {
          if (l.id === null) return l;
          let id = l.id;
          while (seen.has(id)) id++;
          seen.add(id);
          return { ...l, id };
        });
        const text = file.map((l) => render(l, style.unit));
        const start = at % text.length;
        const end = Math.min(text.length, start + length);
        const block = text.slice(start, end);
        // The block must hold a line of its own (an id), or a correct match elsewhere is possible.
        fc.pre(file.slice(start, end).some((l) => !l.blank && l.id !== null));
        const first = file[start] as Line;
        const replacement =
          change === "delete"
            ? block.slice(1)
            : change === "insert"
              ? [...block, `${style.unit.repeat(first.blank ? 0 : first.depth)}added v-new`]
              : block.map((l, j) => (j === block.length - 1 && l.trim() !== "" ? `${l.trimEnd()} + 1` : l));
        // Without a trailing line break in old_string, emptying a block leaves an empty line:
        // only blocks that keep a line are generated, so the intended file is unambiguous.
        fc.pre(replacement.length > 0 && replacement.join("\n") !== block.join("\n"));
        const original = (style.bom ? "\uFEFF" : "") + `${text.join(style.eol)}${style.eol}`;
        const intended =
          (style.bom ? "\uFEFF" : "") +
          `${[...text.slice(0, start), ...replacement, ...text.slice(end)].join(style.eol)}${style.eol}`;

        let oldLines = [...block];
        let newLines = [...replacement];
        const both = (f: (l: string) => string) => {
          oldLines = oldLines.map(f);
          newLines = newLines.map(f);
        };
        switch (noise) {
          case "trailing":
            oldLines = oldLines.map((l) => l.trimEnd());
            break;
          case "tabs":
            both((l) =>
              l
                .replace(/^\t+/, (t) => "    ".repeat(t.length))
                .replace(/^( {2})+/, (s) => "\t".repeat(s.length / 2)),
            );
            break;
          case "shift": {
            const u = style.unit;
            if (!oldLines.every((l) => l.trim() === "" || l.startsWith(u))) return;
            if (!newLines.every((l) => l.trim() === "" || l.startsWith(u))) return;
            both((l) => (l.trim() === "" ? l : l.slice(u.length)));
            break;
          }
          case "quotes":
            oldLines = oldLines.map((l) => l.replace(/"([^"]*)"/g, "\u201C$1\u201D").replace(/'/g, "\u2019"));
            break;
          case "escape":
            oldLines = [JSON.stringify(oldLines.join("\n")).slice(1, -1)];
            newLines = [JSON.stringify(newLines.join("\n")).slice(1, -1)];
            break;
          case "numbers": {
            const width = String(end).length;
            oldLines = oldLines.map((l, j) => `${String(start + 1 + j).padStart(width)} | ${l}`);
            break;
          }
          case "stale": {
            const j = oldLines.findIndex((l) => l.trim() !== "");
            const stale = `${(oldLines[j] as string).trimEnd()}Old`;
            if (newLines[j] === oldLines[j]) newLines[j] = stale;
            oldLines[j] = stale;
            break;
          }
        }
        const oldString = oldLines.join("\n");
        const newString = newLines.join("\n");
        if (oldString === newString) return;
        let result: string | undefined;
        try {
          result = applyEdit(original, oldString, newString).content;
        } catch (err) {
          if (!(err instanceof EditError)) throw err;
          expect(err.message.length).toBeGreaterThan(20);
          tally.refused++;
          return;
        }
        expect(noise, "a stale line was applied").not.toBe("stale");
        expect(JSON.stringify(result)).toBe(JSON.stringify(intended));
        tally.applied++;
      }),
      { numRuns: Number(process.env.EDIT_PROPERTY_RUNS ?? 3000) },
    );
    // Refusing everything would pass the property: most noisy edits must be carried out.
    expect(tally.applied).toBeGreaterThan(2 * tally.refused);
  });
});
