import { isBlank, leadOf } from "./layers.js";

/**
 * How the indentation a hunk was written with relates to the file's: the same, the file one
 * prefix deeper or shallower everywhere, or the file's tabs written as spaces (or its space units
 * written as tabs). Only a transform that maps every context and removed line's indentation
 * exactly is accepted; it is then applied to the added lines in reverse.
 */
export type IndentTransform =
  | { readonly kind: "same" }
  /** The file is `prefix` deeper than the hunk on every line. */
  | { readonly kind: "deeper"; readonly prefix: string }
  /** The hunk is `prefix` deeper than the file on every line. */
  | { readonly kind: "shallower"; readonly prefix: string }
  /** The hunk wrote each tab of the file's indentation as `width` spaces. */
  | { readonly kind: "tabs-as-spaces"; readonly width: number }
  /** The hunk wrote each `width` spaces of the file's indentation as a tab. */
  | { readonly kind: "spaces-as-tabs"; readonly width: number };

/** One non-blank line's indentation in the hunk and in the file where it matched. */
export interface IndentPair {
  readonly hunk: string;
  readonly file: string;
}

/** What is known of a file's indentation, beyond the lines a hunk matched. */
export interface FileIndentation {
  /** The width of one indentation level when the file indents with spaces, if it shows one. */
  readonly spaceUnit: number | undefined;
  /** The indentation of every non-blank line of the file. */
  readonly leads: ReadonlySet<string>;
  /** Some blank line of the file holds spaces or tabs (so an empty one is not the only convention). */
  readonly indentedBlankLines: boolean;
  /** How many spaces follow the tabs in the file's tab-then-spaces indentations (continuation lines). */
  readonly spacesAfterTabs: ReadonlySet<number>;
  /** The widths of the file's indentations made of spaces only. */
  readonly spacesOnly: ReadonlySet<number>;
}

/** The indentations a file uses and its space unit (the most common step between lines). */
export function fileIndentation(lines: readonly string[]): FileIndentation {
  const steps = new Map<number, number>();
  const leads = new Set<string>();
  const spacesAfterTabs = new Set<number>();
  const spacesOnly = new Set<number>();
  let previous: number | undefined;
  let indentedBlankLines = false;
  for (const line of lines) {
    if (isBlank(line)) {
      if (line !== "" && line !== "\r") indentedBlankLines = true;
      continue;
    }
    const lead = leadOf(line);
    leads.add(lead);
    if (lead.includes("\t")) {
      const spaces = /^\t+( +)$/.exec(lead)?.[1];
      if (spaces !== undefined) spacesAfterTabs.add(spaces.length);
      previous = undefined;
      continue;
    }
    if (previous !== undefined && lead.length > previous) {
      const step = lead.length - previous;
      steps.set(step, (steps.get(step) ?? 0) + 1);
    }
    spacesOnly.add(lead.length);
    previous = lead.length;
  }
  let spaceUnit: number | undefined;
  let best = 0;
  for (const [step, count] of steps) {
    if (step >= 2 && step <= 8 && count > best) {
      spaceUnit = step;
      best = count;
    }
  }
  return { leads, spaceUnit, spacesAfterTabs, spacesOnly, indentedBlankLines };
}

const countTabs = (text: string): number => text.split("\t").length - 1;

/** The indentation the hunk would have written for a file line's indentation, under `t`. */
function toHunk(t: IndentTransform, file: string): string | undefined {
  switch (t.kind) {
    case "same":
      return file;
    case "deeper":
      return file.startsWith(t.prefix) ? file.slice(t.prefix.length) : undefined;
    case "shallower":
      return t.prefix + file;
    case "tabs-as-spaces":
      return file.replaceAll("\t", " ".repeat(t.width));
    case "spaces-as-tabs":
      return file.replaceAll(" ".repeat(t.width), "\t");
  }
}

/**
 * Every transform that maps each pair's file indentation to the hunk's exactly. The unit of a
 * tabs/spaces swap is read from the pairs themselves, or from the file when no pair shows it.
 */
export function fittingTransforms(pairs: readonly IndentPair[], file: FileIndentation): IndentTransform[] {
  const candidates: IndentTransform[] = [{ kind: "same" }];
  const first = pairs[0];
  if (first !== undefined) {
    if (first.file.length > first.hunk.length && first.file.endsWith(first.hunk)) {
      candidates.push({ kind: "deeper", prefix: first.file.slice(0, first.file.length - first.hunk.length) });
    }
    if (first.hunk.length > first.file.length && first.hunk.endsWith(first.file)) {
      candidates.push({
        kind: "shallower",
        prefix: first.hunk.slice(0, first.hunk.length - first.file.length),
      });
    }
  }
  const tabbedFile = pairs.find((p) => p.file.includes("\t"));
  if (tabbedFile !== undefined) {
    const tabs = countTabs(tabbedFile.file);
    const width = (tabbedFile.hunk.length - (tabbedFile.file.length - tabs)) / tabs;
    if (Number.isInteger(width) && width >= 1) candidates.push({ kind: "tabs-as-spaces", width });
  }
  const tabbedHunk = pairs.find((p) => p.hunk.includes("\t"));
  if (tabbedHunk !== undefined) {
    const tabs = countTabs(tabbedHunk.hunk);
    const width = (tabbedHunk.file.length - (tabbedHunk.hunk.length - tabs)) / tabs;
    if (Number.isInteger(width) && width >= 2) candidates.push({ kind: "spaces-as-tabs", width });
  } else if (file.spaceUnit !== undefined) {
    candidates.push({ kind: "spaces-as-tabs", width: file.spaceUnit });
  }
  const fitting = candidates.filter((t) => pairs.every((p) => toHunk(t, p.file) === p.hunk));
  // When every old line is indented as in the file, nothing says the added lines are not.
  return fitting[0]?.kind === "same" ? [fitting[0]] : fitting;
}

/** A line before an added line in the new text: its indentation in the hunk and in the file. */
export interface PreviousLine {
  readonly hunk: string;
  readonly file: string;
}

/**
 * The file's indentation for an added line's indentation under `t`, or undefined when there is
 * none or more than one. A width written with spaces in a tab-indented file is as many tabs as fit
 * when the file itself indents a line that way, and unless it also writes that width as tabs plus
 * more spaces, or as spaces only; otherwise only a sibling (the nearest line before at the same
 * width with only deeper lines between, indented with tabs only) decides. A whitespace-only
 * line is shifted like any other; an empty one stays empty where the file's blank lines all are.
 */
export function toFile(
  t: IndentTransform,
  hunkLead: string,
  blank: boolean,
  file: FileIndentation,
  previous: readonly PreviousLine[],
): string | undefined {
  if (hunkLead === "") {
    if (!blank) return t.kind === "deeper" ? t.prefix : "";
    // An empty line of a hunk written one prefix too shallow may have lost that prefix; only a
    // file whose blank lines are all empty says it did not.
    return t.kind === "deeper" && file.indentedBlankLines ? undefined : "";
  }
  switch (t.kind) {
    case "same":
      return hunkLead;
    case "deeper":
      return t.prefix + hunkLead;
    case "shallower":
      if (hunkLead.startsWith(t.prefix)) return hunkLead.slice(t.prefix.length);
      return blank ? hunkLead : undefined;
    case "spaces-as-tabs": {
      const lead = hunkLead.replaceAll("\t", " ".repeat(t.width));
      return toHunk(t, lead) === hunkLead ? lead : undefined;
    }
    case "tabs-as-spaces": {
      if (hunkLead.includes("\t")) return blank ? hunkLead : undefined;
      const most = Math.floor(hunkLead.length / t.width);
      const withTabs = (tabs: number) => "\t".repeat(tabs) + " ".repeat(hunkLead.length - tabs * t.width);
      const fullest = withTabs(most);
      if (blank) return fullest;
      let readings = 1;
      // Every other reading the file itself writes somewhere (tabs then that many spaces, or spaces only).
      for (let tabs = most - 1; tabs >= 0; tabs--) {
        const spaces = hunkLead.length - tabs * t.width;
        if ((tabs > 0 ? file.spacesAfterTabs : file.spacesOnly).has(spaces)) readings++;
      }
      if (readings === 1 && (most <= 1 || file.leads.has(fullest))) return fullest;
      // A sibling: the nearest line before at the same width with only deeper lines between (so
      // in the same block, not the line a continuation continues), indented with tabs only.
      for (let k = previous.length - 1; k >= 0; k--) {
        const before = previous[k] as PreviousLine;
        if (before.hunk.length > hunkLead.length) continue;
        if (before.hunk === hunkLead && before.file === fullest) return fullest;
        break;
      }
      return undefined;
    }
  }
}

/** Added lines moved to the file's indentation under `t`; undefined when one has no single reading. */
export function reindentAdded(
  t: IndentTransform,
  replacement: readonly string[],
  contextIndex: readonly number[],
  matched: readonly string[],
  file: FileIndentation,
): string[] | undefined {
  const out: string[] = [];
  const previous: PreviousLine[] = [];
  for (let i = 0; i < replacement.length; i++) {
    const line = replacement[i] as string;
    const blank = isBlank(line);
    const from = contextIndex[i] ?? -1;
    if (from >= 0) {
      out.push(line);
      if (!blank) previous.push({ hunk: leadOf(line), file: leadOf(matched[from] as string) });
      continue;
    }
    const lead = blank ? line : leadOf(line);
    const mapped = toFile(t, lead, blank, file, previous);
    if (mapped === undefined) return undefined;
    out.push(mapped + line.slice(lead.length));
    if (!blank) previous.push({ hunk: lead, file: mapped });
  }
  return out;
}

/** A transform as words, for results and refusals. */
export function describeTransform(t: IndentTransform): string {
  const shown = (prefix: string) => JSON.stringify(prefix);
  switch (t.kind) {
    case "same":
      return "indentation unchanged";
    case "deeper":
      return `every line ${shown(t.prefix)} deeper in the file`;
    case "shallower":
      return `every line ${shown(t.prefix)} shallower in the file`;
    case "tabs-as-spaces":
      return `the file's tabs written as ${t.width} spaces`;
    case "spaces-as-tabs":
      return `the file's ${t.width}-space indentation written as tabs`;
  }
}
