import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  frames,
  message,
  messageItem,
  type RecordedRequest,
  type Reply,
  responseObject,
  sseReply,
  startWireServer,
  streamEventsFor,
  usage,
  type WireServer,
} from "@attractor/llm/testing";
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
const READMES = [
  "README.md",
  "packages/llm/README.md",
  "packages/agent/README.md",
  "packages/runtime/README.md",
  "packages/fleet/README.md",
  "packages/cli/README.md",
];

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
    // Fences may be indented (a block inside a list item); the indentation is not part of the code.
    const fence = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i] ?? "");
    if (!fence) continue;
    const indent = fence[1]?.length ?? 0;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i] ?? ""); i++)
      body.push((lines[i] ?? "").slice(indent));
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
let server: WireServer;

const ANSWER = "Done: nothing needed changing.";

/** A plain answer in each protocol's shape, streamed or whole as the request asks. */
function answer(request: RecordedRequest): Reply {
  if (request.path.endsWith("/messages")) {
    const content = [{ type: "text", text: ANSWER }];
    return request.body?.stream
      ? { kind: "sse", frames: frames(streamEventsFor(content, "end_turn", { input: 40, output: 8 })) }
      : { kind: "json", body: message(content, "end_turn", { input_tokens: 40, output_tokens: 8 }) };
  }
  if (request.path.endsWith("/responses")) {
    const response = responseObject("resp_1", [messageItem("msg_1", ANSWER)], usage(40, 8));
    return request.body?.stream ? sseReply(response) : { kind: "json", body: response };
  }
  return { kind: "text", status: 404, body: `no such endpoint: ${request.path}` };
}

/** Runs a transpiled example with node, the wire server standing in for every provider. */
function runExample(file: string): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: project,
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: server.url,
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: `${server.url}/v1`,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

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
    list.push(
      `${where ? `${where.line + 1}:${where.character + 1} ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
    diagnostics.set(file, list);
  }
  for (const e of examples.filter((x) => x.run)) {
    const js = ts.transpileModule(e.code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
    }).outputText;
    writeFileSync(join(project, e.file.replace(/\.ts$/, ".mjs")), js);
  }
}, 120_000);

beforeAll(async () => {
  server = await startWireServer(answer);
});

afterAll(async () => {
  await server?.close(); // fails when an example sent a request that breaks a provider's specification
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("README examples", () => {
  it("are found in every package README", () => {
    for (const readme of READMES.slice(1))
      expect(
        examples.some((e) => e.readme === readme),
        readme,
      ).toBe(true);
  });

  it("report no problem outside the example files", () => {
    const outside = [...diagnostics].filter(([file]) => !examples.some((e) => e.file === file));
    expect(outside).toEqual([]);
  });

  it("mark some examples to run", () => {
    expect(examples.filter((e) => e.run).length).toBeGreaterThanOrEqual(4);
  });

  for (const e of examples) {
    it(`type-check: ${e.readme} line ${e.line}`, () => {
      expect(diagnostics.get(e.file) ?? []).toEqual([]);
    });
  }

  for (const e of examples.filter((x) => x.run)) {
    it(`run: ${e.readme} line ${e.line}`, async () => {
      const before = server.requests.length;
      const { code, output } = await runExample(e.file.replace(/\.ts$/, ".mjs"));
      expect({ code, output }).toMatchObject({ code: 0 });
      // Each runnable example prints the model's answer, so a failed request cannot pass unseen.
      expect(output).toContain(ANSWER);
      expect(server.requests.length).toBeGreaterThan(before);
      expect(server.violations).toEqual([]);
    }, 60_000);
  }
});

const API_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  llm: [".", "./testing"],
  agent: [".", "./testing"],
  runtime: [".", "./names"],
  fleet: ["."],
  cli: ["./runtime", "./headless", "./tui", "./config", "./testing"],
};

/** An entry's source file, from the `types` path its package.json exports (dist/x.d.ts → src/x.ts). */
function entrySource(pkg: string, entry: string): string {
  const pkgDir = join(repo, "packages", pkg);
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const types: string = manifest.exports[entry].types;
  return join(pkgDir, types.replace("./dist/", "src/").replace(/\.d\.ts$/, ".ts"));
}

let apiProgram: ts.Program | undefined;

/** The names an entry exports, read from its source with the compiler's checker (one program for all). */
function entryExports(pkg: string, entry: string): string[] {
  apiProgram ??= ts.createProgram(
    Object.entries(API_ENTRIES).flatMap(([p, entries]) => entries.map((e) => entrySource(p, e))),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      jsx: ts.JsxEmit.ReactJSX,
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const checker = apiProgram.getTypeChecker();
  const file = apiProgram.getSourceFile(entrySource(pkg, entry));
  const symbol = file && checker.getSymbolAtLocation(file);
  if (!symbol) throw new Error(`no module for ${pkg} ${entry}`);
  return checker
    .getExportsOfModule(symbol)
    .map((s) => s.name)
    .sort();
}

/** The names a README's "Public API" section lists under each `### \`entry\`` heading. */
export function listedApi(text: string): Map<string, string[]> {
  const section = text.split(/^## Public API\s*$/m)[1]?.split(/^## /m)[0] ?? "";
  const entries = new Map<string, string[]>();
  for (const part of section.split(/^### /m).slice(1)) {
    const [heading = "", ...rest] = part.split("\n");
    const entry = /`([^`]+)`/.exec(heading)?.[1];
    if (!entry) continue;
    const names = [...rest.join("\n").matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1] ?? "");
    entries.set(entry, names.sort());
  }
  return entries;
}

describe("README public API lists", () => {
  for (const [pkg, entries] of Object.entries(API_ENTRIES)) {
    it(`name exactly what each entry of ${pkg} exports`, { timeout: 60_000 }, () => {
      const pkgDir = join(repo, "packages", pkg);
      const listed = listedApi(readFileSync(join(pkgDir, "README.md"), "utf8"));
      const name = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).name as string;
      const expected = new Map(
        entries.map((e) => [e === "." ? name : `${name}${e.slice(1)}`, entryExports(pkg, e)]),
      );
      expect(
        Object.fromEntries(listed),
        "update the lists: node packages/agent/scripts/readme-api.mjs",
      ).toEqual(Object.fromEntries(expected));
    });
  }
});
