import type {
  DocumentSymbol,
  Location,
  Position,
  Range,
  SymbolInformation,
  SymbolKind,
} from "vscode-languageserver-protocol";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { LanguageServerClient } from "./client.js";
import { isTypeKind, pathOfUri, type SourceLines, toLocations, uriOf } from "./format.js";

// Type hierarchies for servers without typeHierarchy (typescript-language-server, pyright),
// built from requests every server answers: a subtype is a type whose declaration header
// references the type; supertypes are the types named in a type's own header.

/** A type (or method) found while walking a hierarchy. */
export interface HierarchyNode {
  readonly name: string;
  readonly kind: SymbolKind;
  readonly uri: string;
  readonly range: Range;
  readonly selectionRange: Range;
  readonly children: readonly HierarchyNode[];
}

/** What the walks need: the requests, for any file, and a reader of the files. */
export interface HierarchyContext {
  readonly env: ExecutionEnvironment;
  readonly source: SourceLines;
  /** The client serving a file, the file shown to it first. */
  readonly clientFor: (absolutePath: string) => Promise<LanguageServerClient>;
  readonly signal?: AbortSignal;
}

const contains = (range: Range, p: Position): boolean =>
  (p.line > range.start.line || (p.line === range.start.line && p.character >= range.start.character)) &&
  (p.line < range.end.line || (p.line === range.end.line && p.character <= range.end.character));

/** The symbols of a file as DocumentSymbol trees (flat answers get empty children). */
export async function documentSymbols(
  ctx: HierarchyContext,
  absolutePath: string,
): Promise<DocumentSymbol[]> {
  const client = await ctx.clientFor(absolutePath);
  const result = await client.request<(DocumentSymbol | SymbolInformation)[] | null>(
    "textDocument/documentSymbol",
    { textDocument: { uri: uriOf(absolutePath) } },
    ctx.signal,
  );
  return (result ?? []).map((s) =>
    "location" in s
      ? {
          name: s.name,
          kind: s.kind,
          range: s.location.range,
          selectionRange: s.location.range,
          children: [],
        }
      : s,
  );
}

/** The innermost symbol containing a position, with its parents outermost first. */
export function symbolPathAt(symbols: readonly DocumentSymbol[], p: Position): DocumentSymbol[] {
  const path: DocumentSymbol[] = [];
  let level: readonly DocumentSymbol[] = symbols;
  for (;;) {
    const hit = level.find((s) => contains(s.range, p));
    if (!hit) return path;
    path.push(hit);
    level = hit.children ?? [];
  }
}

/** The last line of a type's header: before its first member, or the line of its name. */
function headerEnd(symbol: DocumentSymbol): number {
  const first = (symbol.children ?? []).reduce(
    (min, c) => Math.min(min, c.range.start.line),
    Number.POSITIVE_INFINITY,
  );
  return Number.isFinite(first)
    ? Math.max(symbol.selectionRange.end.line, first - 1)
    : symbol.selectionRange.end.line;
}

/** Where a symbol is declared: its definition, or the position itself when the server knows none. */
export async function declarationOf(
  ctx: HierarchyContext,
  absolutePath: string,
  position: Position,
): Promise<Location> {
  const client = await ctx.clientFor(absolutePath);
  const uri = uriOf(absolutePath);
  const found = toLocations(
    await client.request("textDocument/definition", { textDocument: { uri }, position }, ctx.signal),
  );
  return found[0] ?? { uri, range: { start: position, end: position } };
}

/** The declared symbol (and its parents) at a declaration location. */
export async function declaredSymbol(ctx: HierarchyContext, at: Location): Promise<DocumentSymbol[]> {
  const abs = pathOfUri(at.uri);
  if (!abs) return [];
  return symbolPathAt(await documentSymbols(ctx, abs), at.range.start);
}

/** Types whose header names the type declared at `at`, one level down. */
export async function directSubtypes(ctx: HierarchyContext, at: Location): Promise<HierarchyNode[]> {
  const abs = pathOfUri(at.uri);
  if (!abs) return [];
  const client = await ctx.clientFor(abs);
  const refs = toLocations(
    await client.request(
      "textDocument/references",
      { textDocument: { uri: at.uri }, position: at.range.start, context: { includeDeclaration: false } },
      ctx.signal,
    ),
  );
  const found = new Map<string, HierarchyNode>();
  const byFile = new Map<string, Location[]>();
  for (const r of refs) byFile.set(r.uri, [...(byFile.get(r.uri) ?? []), r]);
  for (const [uri, list] of byFile) {
    const file = pathOfUri(uri);
    if (!file) continue;
    const symbols = await documentSymbols(ctx, file);
    for (const r of list) {
      const chain = symbolPathAt(symbols, r.range.start).filter((s) => isTypeKind(s.kind));
      const owner = chain[chain.length - 1];
      if (!owner) continue;
      const line = r.range.start.line;
      if (line < owner.range.start.line || line > headerEnd(owner)) continue;
      if (contains(owner.selectionRange, r.range.start)) continue;
      const key = `${uri}:${owner.selectionRange.start.line}:${owner.selectionRange.start.character}`;
      found.set(key, { ...nodeOf(uri, owner), children: [] });
    }
  }
  return [...found.values()];
}

const HEADER_KEYWORDS = new Set([
  "class",
  "interface",
  "struct",
  "extends",
  "implements",
  "public",
  "private",
  "protected",
  "abstract",
  "export",
  "default",
  "declare",
  "final",
  "sealed",
  "open",
  "def",
  "object",
  "Generic",
  "Protocol",
]);

/** Positions of the names a type header lists as its bases (the outermost names, not type arguments). */
export function baseNamePositions(
  headerLines: readonly string[],
  firstLine: number,
  nameEnd: Position,
): Position[] {
  const tokens: { position: Position; depth: number; name: string }[] = [];
  let depth = 0;
  for (let i = 0; i < headerLines.length; i++) {
    const text = headerLines[i]!;
    const lineNo = firstLine + i;
    const start = lineNo === nameEnd.line ? nameEnd.character : lineNo < nameEnd.line ? text.length : 0;
    for (let c = start; c < text.length; c++) {
      const ch = text[c]!;
      // The body starts at a "{" (TypeScript, Java…) or after a ":" ending the line (Python).
      if (ch === "{" && depth === 0) return pick(tokens);
      if (ch === ":" && depth === 0 && /^\s*(#.*)?$/.test(text.slice(c + 1))) return pick(tokens);
      if ("([<".includes(ch)) depth++;
      else if (")]>".includes(ch)) depth--;
      else if (/[\p{L}_$]/u.test(ch)) {
        let e = c;
        while (e < text.length && /[\p{L}\p{N}_$]/u.test(text[e]!)) e++;
        const name = text.slice(c, e);
        const before = text.slice(0, c).trimEnd();
        const after = text.slice(e).trimStart();
        const qualifier = after.startsWith(".");
        const keyword = before.endsWith("=") || after.startsWith("=") || HEADER_KEYWORDS.has(name);
        if (!qualifier && !keyword) tokens.push({ position: { line: lineNo, character: c }, depth, name });
        c = e - 1;
      }
    }
  }
  return pick(tokens);
}

function pick(tokens: readonly { position: Position; depth: number }[]): Position[] {
  const min = tokens.reduce((m, t) => Math.min(m, t.depth), Number.POSITIVE_INFINITY);
  return tokens.filter((t) => t.depth === min).map((t) => t.position);
}

/** The types a type's header names as its bases, one level up. */
export async function directSupertypes(ctx: HierarchyContext, at: Location): Promise<HierarchyNode[]> {
  const abs = pathOfUri(at.uri);
  if (!abs) return [];
  const symbol = (await declaredSymbol(ctx, at)).filter((s) => isTypeKind(s.kind)).pop();
  if (!symbol) return [];
  const lines = await ctx.source.lines(abs);
  if (!lines) return [];
  const first = symbol.range.start.line;
  const header = lines.slice(first, headerEnd(symbol) + 1);
  const found = new Map<string, HierarchyNode>();
  for (const position of baseNamePositions(header, first, symbol.selectionRange.end)) {
    const target = await declarationOf(ctx, abs, position);
    if (target.uri === at.uri && target.range.start.line === position.line) continue;
    const chain = await declaredSymbol(ctx, target);
    const base = chain.filter((s) => isTypeKind(s.kind)).pop();
    if (!base || !contains(base.selectionRange, target.range.start)) continue;
    const key = `${target.uri}:${base.selectionRange.start.line}`;
    found.set(key, { ...nodeOf(target.uri, base), children: [] });
  }
  return [...found.values()];
}

/** Walks a hierarchy `levels` deep from a type, each type visited once. */
export async function walkHierarchy(
  ctx: HierarchyContext,
  start: Location,
  step: (ctx: HierarchyContext, at: Location) => Promise<HierarchyNode[]>,
  levels: number,
  seen = new Set<string>(),
): Promise<HierarchyNode[]> {
  if (levels <= 0) return [];
  seen.add(`${start.uri}:${start.range.start.line}`);
  const out: HierarchyNode[] = [];
  for (const node of await step(ctx, start)) {
    const key = `${node.uri}:${node.selectionRange.start.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const children = await walkHierarchy(
      ctx,
      { uri: node.uri, range: node.selectionRange },
      step,
      levels - 1,
      seen,
    );
    out.push({ ...node, children });
  }
  return out;
}

/** A node for a symbol of a file. */
export function nodeOf(uri: string, s: DocumentSymbol): HierarchyNode {
  return { name: s.name, kind: s.kind, uri, range: s.range, selectionRange: s.selectionRange, children: [] };
}

/** Every node of a tree, depth first. */
export function flatten(nodes: readonly HierarchyNode[]): HierarchyNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}
