import { isAbsolute, join } from "node:path";
import type {
  CallHierarchyItem,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  SymbolInformation,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import { defineBuiltinTool } from "../tools/define-tool.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool, ToolCallContext, ToolOutput } from "../types/tool.js";
import {
  CODE_INTELLIGENCE_DESCRIPTIONS,
  CODE_INTELLIGENCE_PARAMETERS,
  type CodeIntelligenceArgs,
  type CodeIntelligenceToolName,
} from "./definitions.js";
import { CodeIntelligenceError, NoLanguageServerError } from "./errors.js";
import {
  countSymbols,
  displayPath,
  formatDiagnostic,
  formatItem,
  formatLocations,
  formatSymbolTree,
  formatWorkspaceSymbol,
  hoverText,
  isTypeKind,
  pathOfUri,
  SourceLines,
  sortLocations,
  toLocations,
  uriOf,
} from "./format.js";
import { callTree, implementationsByInheritance, nativeTypeHierarchy, nodeLines } from "./hierarchies.js";
import {
  declarationOf,
  declaredSymbol,
  directSubtypes,
  directSupertypes,
  type HierarchyContext,
  walkHierarchy,
} from "./inheritance.js";
import { asResult, atPlace, place, syncedClient, type ToolsContext } from "./tool-context.js";

export type { ToolsContext } from "./tool-context.js";

/** Results listed at most. */
const MAX_LOCATIONS = 50;
const MAX_SYMBOLS = 50;

type Run<N extends CodeIntelligenceToolName> = (
  args: CodeIntelligenceArgs<N>,
  env: ExecutionEnvironment,
  context: ToolCallContext,
) => Promise<string | ToolOutput>;

function tool<N extends CodeIntelligenceToolName>(name: N, run: Run<N>): RegisteredTool {
  return defineBuiltinTool({
    name,
    description: CODE_INTELLIGENCE_DESCRIPTIONS[name],
    parameters: CODE_INTELLIGENCE_PARAMETERS[name],
    readOnly: true,
    execute: async (args, context) => {
      try {
        return await run(args as CodeIntelligenceArgs<N>, context.environment, context);
      } catch (error) {
        return asResult(error);
      }
    },
  });
}

function hierarchyContext(ctx: ToolsContext, signal?: AbortSignal): HierarchyContext {
  return {
    env: ctx.env,
    source: new SourceLines(ctx.env),
    clientFor: (abs) => syncedClient(ctx, abs, signal),
    ...(signal !== undefined && { signal }),
  };
}

/** The nine code-intelligence tools over a pool of language servers. */
export function createCodeIntelligenceTools(ctx: ToolsContext): RegisteredTool[] {
  return [
    tool("find_definition", async (args, env, { signal }) => {
      const p = await place(ctx, env, args, signal);
      const result = await atPlace(ctx, p, (c, uri) =>
        c.request<Location | Location[] | null>(
          "textDocument/definition",
          { textDocument: { uri }, position: p.position },
          signal,
        ),
      );
      const locations = sortLocations(toLocations(result));
      if (locations.length === 0) return `No definition found for ${p.label}.`;
      const body = await formatLocations(ctx.env, locations, { contextLines: 3, limit: MAX_LOCATIONS });
      const heading =
        locations.length === 1
          ? `Definition of ${p.label}:`
          : `${locations.length} definitions of ${p.label}:`;
      return { output: `${heading}\n\n${body}`, details: { matchCount: locations.length } };
    }),

    tool("find_references", async (args, env, { signal }) => {
      const p = await place(ctx, env, args, signal);
      const includeDeclaration = args.includeDeclaration ?? false;
      const result = await atPlace(ctx, p, (c, uri) =>
        c.request<Location[] | null>(
          "textDocument/references",
          { textDocument: { uri }, position: p.position, context: { includeDeclaration } },
          signal,
        ),
      );
      const locations = sortLocations(result ?? []);
      if (locations.length === 0) return `No references found for ${p.label}.`;
      const files = new Set(locations.map((l) => l.uri)).size;
      const body = await formatLocations(ctx.env, locations, { contextLines: 1, limit: MAX_LOCATIONS });
      return {
        output: `${count(locations.length, "reference")} to ${p.label} in ${count(files, "file")}:\n\n${body}`,
        details: { matchCount: locations.length, fileCount: files },
      };
    }),

    tool("get_document_symbols", async (args, env, { signal }) => {
      const abs = env.resolvePath(args.path);
      const text = await ctx.env.readFile(abs);
      const symbols = await ctx.pool.withClient(
        abs,
        async (c) => {
          await c.sync(abs, text);
          ctx.touched.add(abs);
          return c.request<(DocumentSymbol | SymbolInformation)[] | null>(
            "textDocument/documentSymbol",
            { textDocument: { uri: uriOf(abs) } },
            signal,
          );
        },
        signal,
      );
      const shown = displayPath(ctx.env, abs);
      if (!symbols || symbols.length === 0) return `No symbols found in ${shown}.`;
      const n = countSymbols(symbols);
      return {
        output: `${shown} (${count(n, "symbol")}):\n${formatSymbolTree(symbols)}`,
        details: { matchCount: n },
      };
    }),

    tool("find_symbol", async (args, env, { signal }) => {
      const { query } = args;
      const files = args.path !== undefined ? [env.resolvePath(args.path)] : await representativeFiles(ctx);
      if (files.length === 0) return new NoLanguageServerError("this project").message;
      const found: (SymbolInformation | WorkspaceSymbol)[] = [];
      const problems: string[] = [];
      for (const file of files) {
        try {
          const target = await ctx.pool.targetFor(file);
          const symbols = await ctx.pool.withTarget(
            target,
            async (c) => {
              if (!c.isOpen(file)) await c.sync(file, await ctx.env.readFile(file));
              return c.request<(SymbolInformation | WorkspaceSymbol)[] | null>(
                "workspace/symbol",
                { query },
                signal,
              );
            },
            signal,
          );
          found.push(...(symbols ?? []));
        } catch (error) {
          if (error instanceof CodeIntelligenceError) problems.push(error.message);
          else throw error;
        }
      }
      if (found.length === 0 && problems.length > 0) return { output: problems.join("\n"), isError: true };
      if (found.length === 0) return `No symbols matching "${query}".`;
      const ranked = rankSymbols(ctx.env, found, query);
      const lines = ranked.slice(0, MAX_SYMBOLS).map((s) => formatWorkspaceSymbol(ctx.env, s));
      if (ranked.length > MAX_SYMBOLS) lines.push(`… and ${ranked.length - MAX_SYMBOLS} more`);
      return {
        output: `${count(ranked.length, "symbol")} matching "${query}":\n${lines.join("\n")}`,
        details: { matchCount: ranked.length },
      };
    }),

    tool("get_hover_info", async (args, env, { signal }) => {
      const p = await place(ctx, env, args, signal);
      const hover = await atPlace(ctx, p, (c, uri) =>
        c.request<Hover | null>(
          "textDocument/hover",
          { textDocument: { uri }, position: p.position },
          signal,
        ),
      );
      const text = hoverText(hover);
      return text ? `${p.label}:\n\n${text}` : `No hover information for ${p.label}.`;
    }),

    tool("get_call_hierarchy", async (args, env, { signal }) => {
      const p = await place(ctx, env, args, signal);
      const direction = args.direction ?? "both";
      const depth = args.depth ?? 1;
      return atPlace(ctx, p, async (c, uri) => {
        if (!c.capabilities.callHierarchyProvider) {
          return `The ${c.server.id} language server does not support call hierarchies.`;
        }
        const items = await c.request<CallHierarchyItem[] | null>(
          "textDocument/prepareCallHierarchy",
          { textDocument: { uri }, position: p.position },
          signal,
        );
        const item = items?.[0];
        if (!item) return `No function or method at ${p.label}.`;
        const sections = [formatItem(ctx.env, item)];
        if (direction !== "outgoing") {
          const lines = await callTree(ctx, c, item, "incoming", depth, signal);
          sections.push(`Incoming calls (who calls it):\n${lines.length ? lines.join("\n") : "  (none)"}`);
        }
        if (direction !== "incoming") {
          const lines = await callTree(ctx, c, item, "outgoing", depth, signal);
          sections.push(`Outgoing calls (what it calls):\n${lines.length ? lines.join("\n") : "  (none)"}`);
        }
        return sections.join("\n\n");
      });
    }),

    tool("find_implementations", async (args, env, { signal }) => {
      const p = await place(ctx, env, args, signal);
      const client = await ctx.pool.withClient(
        p.abs,
        async (c) => {
          await c.sync(p.abs, p.text);
          return c;
        },
        signal,
      );
      let locations: Location[];
      if (client.capabilities.implementationProvider) {
        const result = await atPlace(ctx, p, (c, uri) =>
          c.request<Location | Location[] | null>(
            "textDocument/implementation",
            { textDocument: { uri }, position: p.position },
            signal,
          ),
        );
        locations = sortLocations(toLocations(result));
      } else {
        locations = await implementationsByInheritance(hierarchyContext(ctx, signal), p);
      }
      if (locations.length === 0) return `No implementations found for ${p.label}.`;
      const body = await formatLocations(ctx.env, locations, { contextLines: 2, limit: MAX_LOCATIONS });
      return {
        output: `${count(locations.length, "implementation")} of ${p.label}:\n\n${body}`,
        details: { matchCount: locations.length },
      };
    }),

    tool("get_type_hierarchy", async (args, env, { signal }) => {
      const p = await place(ctx, env, args, signal);
      const direction = args.direction ?? "both";
      return atPlace(ctx, p, async (c, uri) => {
        if (c.capabilities.typeHierarchyProvider) {
          return nativeTypeHierarchy(ctx, c, uri, p, direction, signal);
        }
        const hctx = hierarchyContext(ctx, signal);
        const start = await declarationOf(hctx, p.abs, p.position);
        const symbol = (await declaredSymbol(hctx, start)).filter((s) => isTypeKind(s.kind)).pop();
        if (!symbol) return `No class or interface at ${p.label}.`;
        const at: Location = { uri: start.uri, range: symbol.selectionRange };
        const sections = [`${formatItem(ctx.env, { ...symbol, uri: start.uri })}`];
        if (direction !== "subtypes") {
          const up = await walkHierarchy(hctx, at, directSupertypes, 3);
          sections.push(`Supertypes:\n${up.length ? nodeLines(ctx.env, up, "↑").join("\n") : "  (none)"}`);
        }
        if (direction !== "supertypes") {
          const down = await walkHierarchy(hctx, at, directSubtypes, 3);
          sections.push(`Subtypes:\n${down.length ? nodeLines(ctx.env, down, "↓").join("\n") : "  (none)"}`);
        }
        return sections.join("\n\n");
      });
    }),

    tool("get_diagnostics", async (args, env, { signal }) => {
      let files: string[];
      if (args.path !== undefined) files = [env.resolvePath(args.path)];
      else {
        // Files deleted since they were touched have nothing left to report.
        const exists = await Promise.all([...ctx.touched].map((f) => ctx.env.fileExists(f)));
        files = [...ctx.touched].filter((_, i) => exists[i]).sort();
      }
      if (files.length === 0) return "No files have been opened or changed yet; give a path.";
      // Each file waits for its server's report at the same time as the others.
      const reports = await Promise.all(files.map((abs) => diagnosticsOf(ctx, abs, signal)));
      const lines = reports.flatMap((list, i) => list.map((d) => formatDiagnostic(ctx.env, files[i]!, d)));
      const problems = lines.length;
      const where = files.length === 1 ? displayPath(ctx.env, files[0]!) : count(files.length, "file");
      if (problems === 0) return { output: `No problems reported in ${where}.`, details: { matchCount: 0 } };
      return {
        output: `${count(problems, "problem")} in ${where}:\n${lines.join("\n")}`,
        details: { matchCount: problems },
      };
    }),
  ];
}

/** A file's diagnostics once the server has looked at its current text. */
async function diagnosticsOf(ctx: ToolsContext, abs: string, signal?: AbortSignal): Promise<Diagnostic[]> {
  const text = await ctx.env.readFile(abs);
  return ctx.pool.withClient(
    abs,
    async (c) => {
      const before = c.diagnosticsFor(abs);
      const sequence = c.diagnosticsSequence;
      const changed = await c.sync(abs, text);
      ctx.touched.add(abs);
      // Already reported for this very text: nothing to wait for.
      if (!changed && before) return sortDiagnostics(before.diagnostics);

      const found =
        (await c.pullDiagnostics(abs, signal)) ??
        (await c.waitForDiagnostics(abs, sequence, ctx.diagnosticsTimeoutMs, signal));
      return sortDiagnostics(found ?? []);
    },
    signal,
  );
}

function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line,
  );
}

/** One file per available server to open first: workspace symbol search needs a project loaded. */
async function representativeFiles(ctx: ToolsContext): Promise<string[]> {
  const files: string[] = [];
  const wd = ctx.env.workingDirectory();
  for (const server of await ctx.availableServers()) {
    const open = ctx.pool.running().find((c) => c.server.id === server.id && c.openPaths().length > 0);
    if (open) {
      files.push(open.openPaths()[0]!);
      continue;
    }
    const exts = server.extensions.map((e) => e.replace(/^\./, ""));
    const pattern = exts.length === 1 ? `**/*.${exts[0]}` : `**/*.{${exts.join(",")}}`;
    const found = await ctx.env.glob(pattern, wd, { maxResults: 1 }).catch(() => undefined);
    const first = found?.paths[0];
    if (first) files.push(isAbsolute(first) ? first : join(wd, first));
  }
  return files;
}

/** Exact names first, then those starting with the query, project files before others. */
function rankSymbols(
  env: ExecutionEnvironment,
  symbols: readonly (SymbolInformation | WorkspaceSymbol)[],
  query: string,
): (SymbolInformation | WorkspaceSymbol)[] {
  const q = query.toLowerCase();
  const score = (s: SymbolInformation | WorkspaceSymbol): number => {
    const name = s.name.toLowerCase();
    const abs = pathOfUri(s.location.uri);
    const outside = !abs || displayPath(env, abs) === abs || abs.includes("/node_modules/");
    return (name === q ? 0 : name.startsWith(q) ? 1 : 2) + (outside ? 10 : 0);
  };
  const seen = new Set<string>();
  return [...symbols]
    .filter((s) => {
      const range = "range" in s.location ? s.location.range : undefined;
      const key = `${s.name}:${s.location.uri}:${range?.start.line ?? ""}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => score(a) - score(b) || a.name.localeCompare(b.name));
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
