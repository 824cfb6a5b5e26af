// Property: for random files (tabs or spaces, CRLF, BOM, non-ASCII) and random edits written as
// v4a hunks, with the noise models add to hunks, applying the patch gives exactly the intended
// file or a refusal, never anything else; a stale context line is always refused.
import { structuredPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyChunks } from "./apply-chunks.js";
import { parsePatch } from "./parser.js";
import { PatchApplyError } from "./types.js";

const WORDS = ["alpha", "beta", "gamma", "return", "if", "x", "y", "value", "déjà", "数据", "end", "{", "}"];
const PUNCT = ['"', "'", "-", "(", ")", ",", ";", ":"];

type Unit = "\t" | "  " | "    ";
type Noise = "none" | "trailing" | "dedent" | "swap" | "quotes" | "stale";

interface Draft {
  readonly unit: Unit;
  readonly lines: readonly (readonly [number, string])[];
  readonly edits: readonly { at: number; remove: number; add: readonly (readonly [number, string])[] }[];
  readonly crlf: boolean;
  readonly bom: boolean;
  readonly trailing: boolean;
  readonly noise: Noise;
  /** The @@ lines between hunks left out, so that the parser sees one hunk. */
  readonly merged: boolean;
}

const text = fc
  .array(fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom(...PUNCT)), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(" "));
const line = fc.tuple(
  fc.integer({ min: 0, max: 3 }),
  fc.oneof({ weight: 6, arbitrary: text }, fc.constant("")),
);
const draft: fc.Arbitrary<Draft> = fc.record({
  unit: fc.constantFrom<Unit>("\t", "  ", "    "),
  lines: fc.array(line, { minLength: 1, maxLength: 40 }),
  edits: fc.array(
    fc.record({ at: fc.nat(), remove: fc.nat({ max: 3 }), add: fc.array(line, { maxLength: 3 }) }),
    { minLength: 1, maxLength: 3 },
  ),
  crlf: fc.boolean(),
  bom: fc.boolean(),
  trailing: fc.boolean(),
  noise: fc.constantFrom<Noise>("none", "trailing", "dedent", "swap", "quotes", "stale"),
  merged: fc.boolean(),
});

const render = (unit: Unit, [level, body]: readonly [number, string]) =>
  body === "" ? "" : unit.repeat(level) + body;

function noisy(noise: Noise, unit: Unit, tag: string, body: string): string | undefined {
  const oldSide = tag !== "+";
  switch (noise) {
    case "none":
      return body;
    case "trailing":
      return oldSide ? body.trimEnd() : body;
    case "dedent":
      if (body.trim() === "") return body.startsWith(unit) ? body.slice(unit.length) : body;
      return body.startsWith(unit) ? body.slice(unit.length) : undefined;
    case "swap": {
      const lead = /^[ \t]*/.exec(body)?.[0] ?? "";
      const swapped = unit === "\t" ? lead.replaceAll("\t", "    ") : lead.replaceAll(unit, "\t");
      return swapped + body.slice(lead.length);
    }
    case "quotes":
      return oldSide ? body.replaceAll('"', "\u201C").replaceAll("'", "\u2019") : body;
    case "stale":
      return body;
  }
}

/** The hunks of the edit, with noise; undefined when the noise does not apply (as the corpus rules say). */
function hunksOf(
  d: Draft,
  before: string[],
  after: string[],
): { body: string[]; stale: boolean } | undefined {
  const { hunks } = structuredPatch(
    "f",
    "f",
    `${before.join("\n")}\n`,
    after.length === 0 ? "" : `${after.join("\n")}\n`,
    "",
    "",
    {
      context: 3,
    },
  );
  if (hunks.length === 0) return undefined;
  const body: string[] = [];
  let stale = false;
  for (const h of hunks) {
    const lines = h.lines.filter((l) => !l.startsWith("\\"));
    let out: string[] = [];
    for (const l of lines) {
      const mapped = noisy(d.noise, d.unit, l[0] as string, l.slice(1));
      if (mapped === undefined) return undefined;
      out.push(l[0] + mapped);
    }
    if (d.noise === "stale" && !stale) {
      const i = out.findIndex((l) => l.startsWith(" ") && /[a-z]{3,}/.test(l));
      if (i >= 0) {
        out = out.map((l, j) => (j === i ? l.replace(/([a-z]{3,})(?!.*[a-z]{3,})/, "$1Old") : l));
        stale = true;
      }
    }
    const oldSide = out.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
    const newSide = out.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
    // A noisy hunk that is in the file verbatim is a literal request, and one whose noise made
    // both sides equal asks for nothing: neither is noise to recover from.
    if (d.noise !== "none") {
      if (oldSide.join("\n") === newSide.join("\n")) return undefined;
      const at = before.findIndex((_, s) => oldSide.every((o, j) => before[s + j] === o));
      if (at >= 0 && out.join("\n") !== lines.join("\n")) return undefined;
    }
    if (!d.merged || body.length === 0) body.push("@@");
    body.push(...out);
  }
  if (d.noise === "stale" && !stale) return undefined;
  return { body, stale };
}

describe("applyChunks on random files and noisy patches", () => {
  it("gives the intended file or a refusal, and refuses every stale context line", () => {
    fc.assert(
      fc.property(draft, (d) => {
        const before = d.lines.map((l, i) => {
          const shown = render(d.unit, l);
          return d.trailing && i % 5 === 2 && shown !== "" ? `${shown} ` : shown;
        });
        const after = [...before];
        for (const e of d.edits)
          after.splice(e.at % (after.length + 1), e.remove, ...e.add.map((l) => render(d.unit, l)));
        const patch = hunksOf(d, before, after);
        if (patch === undefined) return;
        const encode = (lines: string[]) => {
          const body =
            lines.length === 0 ? "" : `${lines.join(d.crlf ? "\r\n" : "\n")}${d.crlf ? "\r\n" : "\n"}`;
          return d.bom ? `\uFEFF${body}` : body;
        };
        const op = parsePatch(
          ["*** Begin Patch", "*** Update File: f", ...patch.body, "*** End Patch"].join("\n"),
        ).operations[0];
        if (op?.kind !== "update") throw new Error("expected an update");
        let result: string | undefined;
        try {
          result = applyChunks(encode(before), op.chunks, "f").content;
        } catch (err) {
          if (!(err instanceof PatchApplyError)) throw err;
        }
        if (patch.stale) expect(result).toBeUndefined();
        else if (result !== undefined) expect(result).toBe(encode(after));
      }),
      { numRuns: 2000 },
    );
  });
});
