import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  Location,
  TypeHierarchyItem,
} from "vscode-languageserver-protocol";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { LanguageServerClient } from "./client.js";
import { formatItem, isTypeKind, pathOfUri } from "./format.js";
import {
  declarationOf,
  declaredSymbol,
  directSubtypes,
  documentSymbols,
  flatten,
  type HierarchyContext,
  type HierarchyNode,
  symbolPathAt,
  walkHierarchy,
} from "./inheritance.js";
import type { Place, ToolsContext } from "./tool-context.js";

/** Incoming or outgoing calls as indented lines, `depth` levels deep. */
export async function callTree(
  ctx: ToolsContext,
  client: LanguageServerClient,
  item: CallHierarchyItem,
  direction: "incoming" | "outgoing",
  depth: number,
  signal?: AbortSignal,
  indent = 1,
  seen = new Set<string>(),
): Promise<string[]> {
  if (depth <= 0) return [];
  seen.add(`${item.uri}:${item.selectionRange.start.line}:${item.name}`);
  const calls =
    direction === "incoming"
      ? (
          (await client.request<CallHierarchyIncomingCall[] | null>(
            "callHierarchy/incomingCalls",
            { item },
            signal,
          )) ?? []
        ).map((c) => ({ other: c.from, ranges: c.fromRanges, uri: c.from.uri }))
      : (
          (await client.request<CallHierarchyOutgoingCall[] | null>(
            "callHierarchy/outgoingCalls",
            { item },
            signal,
          )) ?? []
        ).map((c) => ({ other: c.to, ranges: c.fromRanges, uri: item.uri }));
  const lines: string[] = [];
  const arrow = direction === "incoming" ? "←" : "→";
  for (const call of calls) {
    const at = [...new Set(call.ranges.map((r) => `${r.start.line + 1}:${r.start.character + 1}`))].join(
      ", ",
    );
    const where = direction === "incoming" ? ` (calls at ${at})` : at ? ` (called at ${at})` : "";
    lines.push(`${"  ".repeat(indent)}${arrow} ${formatItem(ctx.env, call.other)}${where}`);
    const key = `${call.other.uri}:${call.other.selectionRange.start.line}:${call.other.name}`;
    if (seen.has(key)) continue;
    lines.push(...(await callTree(ctx, client, call.other, direction, depth - 1, signal, indent + 1, seen)));
  }
  return lines;
}

/** The type hierarchy through the server's own typeHierarchy requests. */
export async function nativeTypeHierarchy(
  ctx: ToolsContext,
  c: LanguageServerClient,
  uri: string,
  p: Place,
  direction: string,
  signal?: AbortSignal,
): Promise<string> {
  const items = await c.request<TypeHierarchyItem[] | null>(
    "textDocument/prepareTypeHierarchy",
    { textDocument: { uri }, position: p.position },
    signal,
  );
  const item = items?.[0];
  if (!item) return `No class or interface at ${p.label}.`;
  const walk = async (
    from: TypeHierarchyItem,
    method: string,
    arrow: string,
    level: number,
    seen: Set<string>,
  ): Promise<string[]> => {
    if (level > 3) return [];
    const next = (await c.request<TypeHierarchyItem[] | null>(method, { item: from }, signal)) ?? [];
    const out: string[] = [];
    for (const t of next) {
      const key = `${t.uri}:${t.selectionRange.start.line}`;
      out.push(`${"  ".repeat(level)}${arrow} ${formatItem(ctx.env, t)}`);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(...(await walk(t, method, arrow, level + 1, seen)));
    }
    return out;
  };
  const sections = [formatItem(ctx.env, item)];
  if (direction !== "subtypes") {
    const up = await walk(item, "typeHierarchy/supertypes", "↑", 1, new Set());
    sections.push(`Supertypes:\n${up.length ? up.join("\n") : "  (none)"}`);
  }
  if (direction !== "supertypes") {
    const down = await walk(item, "typeHierarchy/subtypes", "↓", 1, new Set());
    sections.push(`Subtypes:\n${down.length ? down.join("\n") : "  (none)"}`);
  }
  return sections.join("\n\n");
}

/** Hierarchy nodes as indented lines. */
export function nodeLines(
  env: ExecutionEnvironment,
  nodes: readonly HierarchyNode[],
  arrow: string,
  level = 1,
): string[] {
  return nodes.flatMap((n) => [
    `${"  ".repeat(level)}${arrow} ${formatItem(env, { ...n, uri: n.uri })}`,
    ...nodeLines(env, n.children, arrow, level + 1),
  ]);
}

/**
 * Implementations where the server has no implementation search: the subtypes of a type, or for a
 * method, the methods of the same name in its type's subtypes.
 */
export async function implementationsByInheritance(hctx: HierarchyContext, p: Place): Promise<Location[]> {
  const start = await declarationOf(hctx, p.abs, p.position);
  const chain = await declaredSymbol(hctx, start);
  const symbol = chain[chain.length - 1];
  if (!symbol) return [];
  if (isTypeKind(symbol.kind)) {
    const subtypes = flatten(
      await walkHierarchy(hctx, { uri: start.uri, range: symbol.selectionRange }, directSubtypes, 3),
    );
    return subtypes.map((n) => ({ uri: n.uri, range: n.selectionRange }));
  }
  const owner = chain.filter((s) => isTypeKind(s.kind)).pop();
  if (!owner) return [];
  const subtypes = flatten(
    await walkHierarchy(hctx, { uri: start.uri, range: owner.selectionRange }, directSubtypes, 3),
  );
  const found: Location[] = [];
  for (const sub of subtypes) {
    const abs = pathOfUri(sub.uri);
    if (!abs) continue;
    const inFile = await documentSymbols(hctx, abs);
    const type = symbolPathAt(inFile, sub.selectionRange.start)
      .filter((s) => isTypeKind(s.kind))
      .pop();
    const method = type?.children?.find((m) => m.name === symbol.name);
    if (method) found.push({ uri: sub.uri, range: method.selectionRange });
  }
  return found;
}
