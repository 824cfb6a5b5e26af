import { SymbolNotFoundError } from "./errors.js";

/** Where a tool call points: a path and a symbol name, a 1-based line and character, or both. */
export interface PositionQuery {
  readonly path: string;
  readonly symbolName?: string;
  /** 1-based. */
  readonly line?: number;
  /** 1-based, in UTF-16 code units as LSP counts them. */
  readonly character?: number;
}

/** A 0-based LSP position. */
export interface ZeroBasedPosition {
  readonly line: number;
  readonly character: number;
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);

/** Start offsets of whole-word occurrences of `name` in `line`. */
function occurrencesInLine(line: string, name: string, ignoreCase: boolean): number[] {
  const hay = ignoreCase ? line.toLowerCase() : line;
  const needle = ignoreCase ? name.toLowerCase() : name;
  const found: number[] = [];
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return found;
    if (!isWordChar(line[at - 1]) && !isWordChar(line[at + needle.length])) found.push(at);
    from = at + 1;
  }
}

/** The symbol to search for: the last part of a qualified name ("Shape.area" → "area"). */
function searchedName(symbolName: string): string {
  const trimmed = symbolName.trim().replace(/\(\)$/, "");
  const parts = trimmed.split(/\.|::|#/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? trimmed;
}

/**
 * Resolves a query to a 0-based position in `text`: line and character when both are given;
 * else `symbolName` searched as a whole word (nearest to `line` when given, exact case first,
 * then ignoring case); else `line` at character 0. Throws SymbolNotFoundError when the symbol is
 * not in the file, the line is out of range, or nothing but the path was given.
 */
export function resolvePosition(text: string, query: PositionQuery): ZeroBasedPosition {
  const lines = text.split(/\r?\n/);
  const { line, character, symbolName } = query;
  const checkLine = (n: number): number => {
    if (!Number.isInteger(n) || n < 1 || n > lines.length) {
      throw new SymbolNotFoundError(
        query.path,
        `Line ${n} is outside ${query.path} (${lines.length} lines).`,
      );
    }
    return n - 1;
  };
  if (line !== undefined && character !== undefined) {
    const l = checkLine(line);
    return { line: l, character: Math.max(0, Math.min(character - 1, lines[l]!.length)) };
  }
  if (symbolName !== undefined && symbolName.trim() !== "") {
    const name = searchedName(symbolName);
    const near = line !== undefined ? checkLine(line) : undefined;
    for (const ignoreCase of [false, true]) {
      let best: ZeroBasedPosition | undefined;
      let bestDistance = Number.POSITIVE_INFINITY;
      for (let i = 0; i < lines.length; i++) {
        const hits = occurrencesInLine(lines[i]!, name, ignoreCase);
        if (hits.length === 0) continue;
        const distance = near === undefined ? 0 : Math.abs(i - near);
        if (distance < bestDistance) {
          best = { line: i, character: hits[0]! };
          bestDistance = distance;
          if (near === undefined) break;
        }
      }
      if (best) return best;
    }
    throw new SymbolNotFoundError(query.path, `Symbol "${symbolName}" was not found in ${query.path}.`);
  }
  if (line !== undefined) return { line: checkLine(line), character: 0 };
  throw new SymbolNotFoundError(query.path, "Give symbolName, or line (and character), to say which symbol.");
}
