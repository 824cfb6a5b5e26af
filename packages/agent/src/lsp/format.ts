import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type {
  CallHierarchyItem,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
  Range,
  SymbolInformation,
  TypeHierarchyItem,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import type { ExecutionEnvironment } from "../types/environment.js";

// Type-only imports above: this module formats plain data and never loads the protocol library.

const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
];

/** The readable name of an LSP SymbolKind. */
export function symbolKindName(kind: number): string {
  return SYMBOL_KINDS[kind] ?? "symbol";
}

/** "class Circle"; just "constructor" where the name only repeats the kind. */
function kindAndName(kind: number, name: string): string {
  const kindName = symbolKindName(kind);
  return name === kindName ? name : `${kindName} ${name}`;
}

/** Whether a SymbolKind is a type that can take part in inheritance. */
export function isTypeKind(kind: number): boolean {
  return kind === 5 || kind === 11 || kind === 23;
}

/** The file URI LSP uses for an absolute path. */
export function uriOf(absolutePath: string): string {
  return pathToFileURL(absolutePath).href;
}

/** The absolute path of a file URI; undefined for other schemes. */
export function pathOfUri(uri: string): string | undefined {
  return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
}

/** A path as the model sees it: relative to the working directory when inside it. */
export function displayPath(env: ExecutionEnvironment, absolute: string): string {
  const rel = relative(env.workingDirectory(), absolute);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return absolute;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** `path:line:col` (1-based) for a URI and range start. */
export function positionLabel(env: ExecutionEnvironment, uri: string, range: Range): string {
  const abs = pathOfUri(uri);
  const where = abs ? displayPath(env, abs) : uri;
  return `${where}:${range.start.line + 1}:${range.start.character + 1}`;
}

/** Definition-like answers (Location, Location[], LocationLink[]) as a list of locations. */
export function toLocations(
  result: Location | readonly (Location | LocationLink)[] | null | undefined,
): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result as Location];
  return list.map((l) =>
    "targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l,
  );
}

/** Reads files' lines for context, each file once per answer; large or unreadable files give none. */
export class SourceLines {
  private readonly files = new Map<string, Promise<string[] | undefined>>();
  constructor(private readonly env: ExecutionEnvironment) {}

  /** The file's lines, or undefined when it cannot be read or is over 4 MB. */
  lines(absolute: string): Promise<string[] | undefined> {
    let found = this.files.get(absolute);
    if (!found) {
      found = (async () => {
        const info = await this.env.stat(absolute).catch(() => undefined);
        if (!info?.isFile || info.size > 4 * 1024 * 1024) return undefined;
        const text = await this.env.readFile(absolute).catch(() => undefined);
        return text?.split(/\r?\n/);
      })();
      this.files.set(absolute, found);
    }
    return found;
  }

  /** Lines around a 0-based line, the target marked with →: "→ 12: text". */
  async context(absolute: string, line: number, around: number): Promise<string[]> {
    const lines = await this.lines(absolute);
    if (!lines || line >= lines.length) return [];
    const from = Math.max(0, line - around);
    const to = Math.min(lines.length - 1, line + around);
    const width = String(to + 1).length;
    const out: string[] = [];
    for (let i = from; i <= to; i++) {
      const text = cut(lines[i]!.replace(/\t/g, "  "), 240);
      out.push(`${i === line ? "→" : " "} ${String(i + 1).padStart(width)}: ${text}`);
    }
    return out;
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Locations, each as `path:line:col` and its context, at most `limit` of them. */
export async function formatLocations(
  env: ExecutionEnvironment,
  locations: readonly Location[],
  options: { readonly contextLines: number; readonly limit: number },
): Promise<string> {
  const source = new SourceLines(env);
  const blocks: string[] = [];
  for (const loc of locations.slice(0, options.limit)) {
    const abs = pathOfUri(loc.uri);
    const context = abs ? await source.context(abs, loc.range.start.line, options.contextLines) : [];
    blocks.push([positionLabel(env, loc.uri, loc.range), ...context].join("\n"));
  }
  const more = locations.length - options.limit;
  if (more > 0) blocks.push(`… and ${more} more`);
  return blocks.join("\n\n");
}

/** Orders locations by path, then position, without duplicates. */
export function sortLocations(locations: readonly Location[]): Location[] {
  const seen = new Set<string>();
  return [...locations]
    .sort(
      (a, b) =>
        a.uri.localeCompare(b.uri) ||
        a.range.start.line - b.range.start.line ||
        a.range.start.character - b.range.start.character,
    )
    .filter((l) => {
      const key = `${l.uri}:${l.range.start.line}:${l.range.start.character}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** A hover's contents as plain text (markdown kept as it is). */
export function hoverText(hover: Hover | null | undefined): string {
  if (!hover) return "";
  const part = (c: MarkedString | MarkupContent): string =>
    typeof c === "string" ? c : "kind" in c ? c.value : `\`\`\`${c.language}\n${c.value}\n\`\`\``;
  const contents = hover.contents;
  const text = Array.isArray(contents) ? contents.map(part).join("\n\n") : part(contents);
  return text.trim();
}

function lineSpan(range: Range): string {
  const a = range.start.line + 1;
  const b = range.end.line + 1;
  return a === b ? `line ${a}` : `lines ${a}-${b}`;
}

/** A file's symbols as an indented tree: "class Circle (lines 6-14)", children two spaces in. */
export function formatSymbolTree(symbols: readonly (DocumentSymbol | SymbolInformation)[]): string {
  const out: string[] = [];
  const walk = (list: readonly DocumentSymbol[], depth: number): void => {
    for (const s of [...list].sort((a, b) => a.range.start.line - b.range.start.line)) {
      const detail = s.detail ? ` ${cut(s.detail.replace(/\s+/g, " "), 80)}` : "";
      out.push(`${"  ".repeat(depth)}${kindAndName(s.kind, s.name)}${detail} (${lineSpan(s.range)})`);
      if (s.children) walk(s.children, depth + 1);
    }
  };
  if (symbols.length > 0 && "location" in symbols[0]!) {
    // Flat SymbolInformation: nesting from containerName.
    for (const s of symbols as SymbolInformation[]) {
      const depth = s.containerName ? 1 : 0;
      out.push(`${"  ".repeat(depth)}${kindAndName(s.kind, s.name)} (${lineSpan(s.location.range)})`);
    }
  } else {
    walk(symbols as DocumentSymbol[], 0);
  }
  return out.join("\n");
}

/** Counts symbols in a tree. */
export function countSymbols(symbols: readonly (DocumentSymbol | SymbolInformation)[]): number {
  return symbols.reduce((n, s) => n + 1 + ("children" in s && s.children ? countSymbols(s.children) : 0), 0);
}

/** One workspace symbol: "class Circle — src/shapes.ts:6:14 (in shapes)". */
export function formatWorkspaceSymbol(
  env: ExecutionEnvironment,
  s: SymbolInformation | WorkspaceSymbol,
): string {
  const range =
    "range" in s.location
      ? s.location.range
      : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const container = s.containerName ? ` (in ${s.containerName})` : "";
  return `${symbolKindName(s.kind)} ${s.name} — ${positionLabel(env, s.location.uri, range)}${container}`;
}

/** A call or type hierarchy item: "function compute — src/calc.ts:3:17". */
export function formatItem(env: ExecutionEnvironment, item: CallHierarchyItem | TypeHierarchyItem): string {
  const text = item.detail ? cut(item.detail.replace(/\s+/g, " ").trim(), 60) : "";
  const detail = text === "" ? "" : text.startsWith("(") ? ` ${text}` : ` (${text})`;
  return `${symbolKindName(item.kind)} ${item.name}${detail} — ${positionLabel(env, item.uri, item.selectionRange)}`;
}

const SEVERITIES = ["", "error", "warning", "info", "hint"];

/** One diagnostic: "src/a.ts:3:7 error TS2322: Type 'string' is not assignable…". */
export function formatDiagnostic(env: ExecutionEnvironment, absolute: string, d: Diagnostic): string {
  const severity = SEVERITIES[d.severity ?? 1] ?? "error";
  const code = d.code !== undefined ? ` ${d.source === "typescript" ? "TS" : ""}${d.code}` : "";
  const where = `${displayPath(env, absolute)}:${d.range.start.line + 1}:${d.range.start.character + 1}`;
  return `${where} ${severity}${code}: ${diagnosticMessage(d).replace(/\s*\n\s*/g, " ")}`;
}

/** A diagnostic's message as text (servers may send markup). */
export function diagnosticMessage(d: Diagnostic): string {
  return typeof d.message === "string" ? d.message : d.message.value;
}
