import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Every ```ts block of the READMEs is a file an embedder could paste as it is: each is written to
 * a scratch project that resolves @attractor/* to the built packages (dist and its .d.ts, as a
 * published install would) and type-checked with `strict`. A block preceded by
 * `<!-- example: run -->` also runs, against the local wire servers of @attractor/llm/testing,
 * with base URLs and keys given through the environment. Run `npm run build` first.
 */

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const READMES = ["README.md", "packages/llm/README.md", "packages/agent/README.md", "packages/fleet/README.md", "packages/cli/README.md"];

interface Example {
  readonly readme: string;
  readonly line: number;
  readonly code: string;
  readonly run: boolean;
  readonly file: string;
}

/** The ```ts blocks of a markdown file, with the line each starts on and whether it is marked to run. */
export function extractExamples(readme: string, text: string): Omit<Example, "file">[] {
  const lines = text.split("\n");
  const out: Omit<Example, "file">[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? "")) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ""); i++) body.push(lines[i] ?? "");
    let previous = start - 1;
    while (previous >= 0 && (lines[previous] ?? "").trim() === "") previous--;
    const run = /<!--\s*example:\s*run\s*-->/.test(lines[previous] ?? "");
    out.push({ readme, line: start + 1, code: `${body.join("\n")}\n`, run });
  }
  return out;
}

const examples: Example[] = READMES.flatMap((readme) =>
  extractExamples(readme, readFileSync(join(repo, readme), "utf8")).map((e, index) => ({
    ...e,
    file: `${readme.replace(/[/.]/g, "_")}_${index + 1}_line${e.line}.ts`,
  })),
);

let project = "";
let diagnostics = new Map<string, string[]>();

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "readme-examples-"));
  // The repository's node_modules holds the workspace links to packages/*, whose package.json
  // `exports` point at dist: the examples see exactly what an install would.
  symlinkSync(join(repo, "node_modules"), join(project, "node_modules"), "dir");
  writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
  for (const e of examples) writeFileSync(join(project, e.file), e.code);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [join(repo, "node_modules", "@types")],
  };
  const program = ts.createProgram(
    examples.map((e) => join(project, e.file)),
    options,
  );
  diagnostics = new Map();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(project, d.file.fileName) : "(options)";
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const list = diagnostics.get(file) ?? [];
    list.push(`${where ? `${where.line + 1}:${where.character + 1} ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    diagnostics.set(file, list);
  }
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("README examples", () => {
  it("are found in every package README", () => {
    for (const readme of READMES.slice(1)) expect(examples.some((e) => e.readme === readme), readme).toBe(true);
  });

  it("report no problem outside the example files", () => {
    const outside = [...diagnostics].filter(([file]) => !examples.some((e) => e.file === file));
    expect(outside).toEqual([]);
  });

  for (const e of examples) {
    it(`type-check: ${e.readme} line ${e.line}`, () => {
      expect(diagnostics.get(e.file) ?? []).toEqual([]);
    });
  }
});
