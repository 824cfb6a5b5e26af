// Reads a program's arguments the way getopt_long does: long options abbreviated to any unique
// prefix (`--outp=F` is `--output=F`), values attached (`-oF`, `-e'…'`, `--opt=v`) or in the next
// word, clusters of short letters (`-ni`, `-io F`), options after operands unless `--` or the
// program stops at its first operand. Each option carries what it does beyond reading its input.
import type { Word } from "./shell-words.js";

/** What an option makes a program do besides reading its named input. */
export type OptionEffect =
  /** Writes or deletes a file (`sort -o`, `sed -i`, `tar --remove-files`). */
  | "write"
  /** Runs a program or code (`rg --pre`, `git grep -O`, `sed -f` script from a file). */
  | "exec"
  /** Reads other processes' data (`ps e` prints their environments). */
  | "procs"
  /** Its value names a file listing the paths the program reads (`--files0-from`). */
  | "filelist"
  /** Its value is a path the program reads. */
  | "path";

/** One option of a program: whether it takes a value and what it does. */
export interface OptionSpec {
  /** `--name` for long options, `-x` for short ones. */
  readonly name: string;
  readonly value: "none" | "required" | "optional";
  readonly effect?: OptionEffect;
}

/** A program's options as data. */
export interface ProgramOptions {
  readonly program: string;
  readonly long: ReadonlyMap<string, OptionSpec>;
  readonly short: ReadonlyMap<string, OptionSpec>;
  /**
   * True when every option with an effect is listed, so an option not listed either is refused by
   * the program or is harmless; false when an unlisted option may do anything (fail closed).
   */
  readonly effectsComplete: boolean;
  /** Options end at the first operand (`env`, `xargs`), as with POSIXLY_CORRECT. */
  readonly stopAtOperand?: boolean;
  /** `-20` is a number option (`head -20`). */
  readonly numberOption?: boolean;
}

/** An option found on the line, resolved to its full name. */
export interface FoundOption {
  readonly spec: OptionSpec;
  /** The words as written (`--outp=F`). */
  readonly written: string;
  /** Its value as text, when it has one. */
  readonly value?: string;
  /** The word holding the value, for path checks. */
  readonly valueWord?: Word;
}

/** A program's arguments, read. */
export interface ParsedOptions {
  readonly options: readonly FoundOption[];
  readonly operands: readonly Word[];
  /** Options the table does not know (and cannot rule out): `--frob`, `-Q`. */
  readonly unknown: readonly string[];
  /** An option's value or an option name is not known before the line runs. */
  readonly dynamic: boolean;
}

/**
 * Parses a compact option description: `short` is a getopt optstring whose letters may be followed
 * by `:` (value) or `::` (optional, attached only) and then an effect mark; `long` is a list of
 * names, each followed by `=` (value) or `?` (optional value) and an effect mark. Effect marks:
 * `>` write, `!` exec, `%` procs, `@` filelist, `<` path.
 */
export function defineOptions(
  program: string,
  short: string,
  long: string,
  flags: Omit<ProgramOptions, "program" | "long" | "short"> = { effectsComplete: true },
): ProgramOptions {
  const marks: Readonly<Record<string, OptionEffect>> = {
    ">": "write",
    "!": "exec",
    "%": "procs",
    "@": "filelist",
    "<": "path",
  };
  const shortMap = new Map<string, OptionSpec>();
  for (let i = 0; i < short.length; ) {
    const letter = short[i++] as string;
    let value: OptionSpec["value"] = "none";
    if (short[i] === ":") {
      i++;
      value = "required";
      if (short[i] === ":") {
        i++;
        value = "optional";
      }
    }
    const effect = marks[short[i] ?? ""];
    if (effect) i++;
    shortMap.set(letter, { name: `-${letter}`, value, ...(effect && { effect }) });
  }
  const longMap = new Map<string, OptionSpec>();
  for (const token of long.split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z0-9][A-Za-z0-9-]*)([=?]?)([>!%@<]?)$/.exec(token);
    if (!m) throw new Error(`bad option description ${token} for ${program}`);
    const effect = marks[m[3] as string];
    longMap.set(m[1] as string, {
      name: `--${m[1]}`,
      value: m[2] === "=" ? "required" : m[2] === "?" ? "optional" : "none",
      ...(effect && { effect }),
    });
  }
  for (const name of ["help", "version"])
    if (!longMap.has(name)) longMap.set(name, { name: `--${name}`, value: "none" });
  return { program, long: longMap, short: shortMap, ...flags };
}

/**
 * The options a long name (without dashes) may stand for under getopt_long: itself when listed,
 * else every listed name it is a prefix of. Several candidates make getopt refuse the line unless
 * they are one option; we keep them all so the strictest decides.
 */
export function longCandidates(table: ProgramOptions, name: string): OptionSpec[] {
  const exact = table.long.get(name);
  if (exact) return [exact];
  const out: OptionSpec[] = [];
  for (const [full, spec] of table.long) if (full.startsWith(name)) out.push(spec);
  return out;
}

const RANK: Readonly<Record<OptionEffect, number>> = { exec: 5, write: 4, procs: 3, filelist: 2, path: 1 };

/** Of several candidates, the one whose effect is worst (fail closed on ambiguous prefixes). */
function strictest(candidates: readonly OptionSpec[]): OptionSpec {
  let best = candidates[0] as OptionSpec;
  for (const c of candidates) {
    const a = c.effect ? RANK[c.effect] : 0;
    const b = best.effect ? RANK[best.effect] : 0;
    if (a > b || (a === b && c.value === "required" && best.value !== "required")) best = c;
  }
  return best;
}

/** Reads `words` (the program's arguments, without its name) against its option table. */
export function parseOptions(table: ProgramOptions, words: readonly Word[]): ParsedOptions {
  const options: FoundOption[] = [];
  const operands: Word[] = [];
  const unknown: string[] = [];
  let dynamic = false;
  let ended = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as Word;
    const t = w.text;
    if (ended || t === "-" || !t.startsWith("-")) {
      // A dynamic word may expand to an option (`$OPT`): the program would read it as one.
      if (!ended && w.dynamic && !/^["']/.test(t)) dynamic = true;
      operands.push(w);
      if (table.stopAtOperand) ended = true;
      continue;
    }
    if (t === "--") {
      ended = true;
      continue;
    }
    if (w.dynamic && /^--?\$|^-[^-]*\$/.test(t)) dynamic = true;
    if (t.startsWith("--")) {
      const eq = t.indexOf("=");
      const name = eq >= 0 ? t.slice(2, eq) : t.slice(2);
      const candidates = longCandidates(table, name);
      if (candidates.length === 0) {
        unknown.push(t);
        continue;
      }
      const spec = strictest(candidates);
      if (eq >= 0)
        options.push({
          spec,
          written: t,
          value: t.slice(eq + 1),
          valueWord: { ...w, text: t.slice(eq + 1) },
        });
      else if (spec.value === "required") {
        const next = words[i + 1];
        i++;
        options.push({
          spec,
          written: t,
          ...(next && { value: next.text, valueWord: next }),
        });
        if (next?.dynamic) dynamic = true;
      } else options.push({ spec, written: t });
      continue;
    }
    if (table.numberOption && /^-\d+[a-zA-Z]*$/.test(t)) continue;
    // A cluster of short letters: each a flag until one takes a value, which is the rest or the next word.
    for (let k = 1; k < t.length; k++) {
      const letter = t[k] as string;
      const spec = table.short.get(letter);
      if (!spec) {
        unknown.push(`-${letter}`);
        continue;
      }
      if (spec.value === "none") {
        options.push({ spec, written: `-${letter}` });
        continue;
      }
      const attached = t.slice(k + 1);
      if (attached !== "" || spec.value === "optional") {
        options.push({
          spec,
          written: t,
          ...(attached !== "" && { value: attached, valueWord: { ...w, text: attached } }),
        });
      } else {
        const next = words[i + 1];
        i++;
        options.push({ spec, written: t, ...(next && { value: next.text, valueWord: next }) });
        if (next?.dynamic) dynamic = true;
      }
      break;
    }
  }
  return { options, operands, unknown, dynamic };
}

/** The first option with one of these effects, if any. */
export function optionWith(parsed: ParsedOptions, ...effects: OptionEffect[]): FoundOption | undefined {
  return parsed.options.find((o) => o.spec.effect !== undefined && effects.includes(o.spec.effect));
}

/** True when an option resolving to one of these names (`--output`, `-o`) is present. */
export function hasOption(parsed: ParsedOptions, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.spec.name));
}

/** The values given to options with these names, in order. */
export function optionValues(parsed: ParsedOptions, ...names: string[]): FoundOption[] {
  return parsed.options.filter((o) => names.includes(o.spec.name));
}
