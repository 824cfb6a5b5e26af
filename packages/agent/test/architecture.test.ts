import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Folder dependencies of each package's sources: a folder depends on another when one of its files
 * imports one of the other's (type-only imports and `import()` included). A folder and its own
 * subfolders are one unit (a folder's index re-exports its parts, and the parts share the folder's
 * modules), so edges between a folder and its ancestors or descendants are not counted; every
 * other cycle is a defect: it means neither folder can be understood or moved without the other.
 */

const packagesDir = fileURLToPath(new URL("../..", import.meta.url));

type FolderGraph = Map<string, Map<string, string[]>>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
      out.push(path);
  }
  return out;
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier).replace(/\.(m?js|jsx)$/, "");
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return undefined;
}

const folderOf = (src: string, file: string) => relative(src, dirname(file)).split(sep).join("/") || ".";
const nests = (a: string, b: string) =>
  a === "." || b === "." || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);

/** The folder graph of the sources under `src`, each edge with the imports that make it. */
export function folderGraph(src: string): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of sourceFiles(src)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolveImport(file, fileName);
      if (!target) continue;
      const from = folderOf(src, file);
      const to = folderOf(src, target);
      if (from === to || nests(from, to)) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${relative(src, file)} imports ${relative(src, target)}`]);
    }
  }
  return graph;
}

/** The graph's cycles, each as the folders of one strongly connected component (Tarjan). */
export function folderCycles(graph: FolderGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** A cycle's edges with the imports behind them, for a failure message a reader can act on. */
function describeCycle(graph: FolderGraph, cycle: readonly string[]): string {
  const lines = [`cycle between ${cycle.join(", ")}:`];
  for (const from of cycle)
    for (const [to, imports] of graph.get(from) ?? [])
      if (cycle.includes(to)) lines.push(`  ${from} -> ${to} (${imports.slice(0, 3).join("; ")})`);
  return lines.join("\n");
}

describe("folder imports", () => {
  for (const pkg of ["llm", "agent", "runtime", "fleet", "cli"]) {
    it(`have no cycle between folders of ${pkg}/src`, () => {
      const graph = folderGraph(join(packagesDir, pkg, "src"));
      const cycles = folderCycles(graph);
      expect(cycles.map((cycle) => describeCycle(graph, cycle)).join("\n")).toBe("");
    });
  }

  const scratch = mkdtempSync(join(tmpdir(), "folder-cycles-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("finds a cycle through a type import and names the files, ignoring a folder's own subfolders", () => {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    };
    write("a/one.ts", 'import type { Two } from "../b/two.js";\nexport type One = Two;\n');
    write("b/two.ts", 'export type Two = string;\nexport const three = () => import("../c/index.js");\n');
    write("c/index.ts", 'export * from "../a/one.js";\nexport * from "./inner/leaf.js";\n');
    write("c/inner/leaf.ts", 'import "../index.js";\nexport const leaf = 1;\n');
    const graph = folderGraph(scratch);
    const cycles = folderCycles(graph);
    expect(cycles).toEqual([["a", "b", "c"]]);
    expect(describeCycle(graph, cycles[0] ?? [])).toContain("a -> b (a/one.ts imports b/two.ts)");
  });
});
