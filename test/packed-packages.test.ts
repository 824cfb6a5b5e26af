// The packages as an embedder gets them: `npm pack` of each workspace (its built dist, as
// `npm run build` left it), unpacked into an empty project's node_modules the way npm lays them
// out, with only the dependencies the packed manifests declare beside them. No registry is needed:
// the declared dependencies are linked from this repository's install. A strict TypeScript program
// (no skipLibCheck) importing every public entry type-checks, and runs a session through the
// packages' bundles. The same with a real
// `npm install` of the tarballs, which needs the registry: `npm run check:install`.
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain script without declarations
import { declaredFiles } from "../scripts/check-package-files.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = ["llm", "agent", "runtime", "fleet", "cli"] as const;

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}
interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

const manifestOf = (pkg: string): Manifest =>
  JSON.parse(readFileSync(join(repo, "packages", pkg, "package.json"), "utf8"));

/**
 * A strict program using every public entry the way an embedder would; it runs a session whose
 * scripted model calls the built-in tools and one of its own, so the packages' bundles run the loop.
 */
const PROGRAM = `import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as llmTesting from "@attractor/llm/testing";
import { Client, generate, type Tool, tool } from "@attractor/llm";
import { scriptedClient } from "@attractor/agent/testing";
import {
  createAnthropicProfile,
  defineTool,
  LocalExecutionEnvironment,
  Session,
  type SessionEvent,
  type Static,
  Type,
} from "@attractor/agent";
import * as fleet from "@attractor/fleet";
import * as runtimePackage from "@attractor/runtime";
import * as runtimeCheckpoints from "@attractor/runtime/checkpoints";
import * as runtimeConfig from "@attractor/runtime/config";
import * as runtimeCustomization from "@attractor/runtime/customization";
import * as runtimeHooks from "@attractor/runtime/hooks";
import * as runtimeMcp from "@attractor/runtime/mcp";
import * as runtimeNames from "@attractor/runtime/names";
import * as runtimePermissions from "@attractor/runtime/permissions";
import * as runtimeStore from "@attractor/runtime/store";
import { assessShellCommand, type LineAssessment } from "@attractor/runtime";
import * as runtime from "@attractor/cli/runtime";
import * as headless from "@attractor/cli/headless";
import * as config from "@attractor/cli/config";

const parameters = Type.Object({ path: Type.String() }, { additionalProperties: false });
const count = defineTool({
  name: "count_chars",
  description: "Counts a file's characters.",
  parameters,
  readOnly: true,
  execute: async ({ path }: Static<typeof parameters>, { environment }) =>
    String((await environment.readFile(path)).length),
});
const echo: Tool<{ text: string }> = tool({
  name: "echo",
  description: "Echoes.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: async ({ text }: { text: string }) => text,
});

const work = join(process.cwd(), "work");
mkdirSync(work, { recursive: true });
writeFileSync(join(work, "app.js"), "export const greeting = 'hello';\\n");
const model = scriptedClient([
  {
    toolCalls: [
      { name: "read_file", args: { file_path: "app.js" } },
      { name: "grep", args: { pattern: "greeting" } },
      { name: "glob", args: { pattern: "*.js" } },
      { name: "count_chars", args: { path: "app.js" } },
      { name: "count_chars", args: { path: 42 } },
    ],
  },
  { toolCalls: [{ name: "edit_file", args: { file_path: "app.js", old_string: "hello", new_string: "hi" } }] },
  { toolCalls: [{ name: "write_file", args: { file_path: "notes.md", content: "done" } }] },
  { toolCalls: [{ name: "shell", args: { command: "cat notes.md" } }] },
  { text: "All done." },
]);
const session = new Session({
  profile: createAnthropicProfile("claude-sonnet-4-5"),
  environment: new LocalExecutionEnvironment({ workingDirectory: work }),
  client: model,
  tools: [count],
});
const events: SessionEvent[] = [];
session.subscribe((event) => events.push(event));
await session.submit("Change the greeting and leave a note.");
await session.close();
const results = events.flatMap((e) => (e.kind === "tool_call_end" ? [[e.data.toolName, e.data.isError]] : []));
// The runtime's bash parser reads its WebAssembly files from the package: a pipeline needs them.
const shell: LineAssessment = await assessShellCommand("ls | sort", { cwd: work, projectRoot: work });
const entries = {
  llmTesting,
  fleet,
  runtimePackage,
  runtimeCheckpoints,
  runtimeConfig,
  runtimeCustomization,
  runtimeHooks,
  runtimeMcp,
  runtimeNames,
  runtimePermissions,
  runtimeStore,
  runtime,
  headless,
  config,
};
console.log(
  JSON.stringify({
    entries: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, Object.keys(v).length])),
    functions: [typeof generate, typeof Client, echo.name],
    results,
    shell: [shell.tier, shell.understood, shell.commands.length],
    app: readFileSync(join(work, "app.js"), "utf8"),
    notes: readFileSync(join(work, "notes.md"), "utf8"),
  }),
);
`;

let scratch = "";
let project = "";
const packed = new Map<string, Packed>();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "packed-packages-"));
  const tarballs = join(scratch, "tarballs");
  mkdirSync(tarballs);
  // --ignore-scripts: prepack would rebuild, under the feet of other test files using dist.
  const out = execFileSync(
    "npm",
    ["pack", "--workspaces", "--json", "--ignore-scripts", "--pack-destination", tarballs],
    { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  for (const p of JSON.parse(out) as Packed[]) packed.set(p.name, p);

  project = join(scratch, "project");
  mkdirSync(join(project, "node_modules"), { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "embedder", private: true, type: "module" }),
  );
  const declared = new Set<string>();
  for (const pkg of PACKAGES) {
    const manifest = manifestOf(pkg);
    const into = join(project, "node_modules", manifest.name);
    mkdirSync(into, { recursive: true });
    const p = packed.get(manifest.name);
    if (!p) throw new Error(`${manifest.name} was not packed`);
    execFileSync("tar", ["-xzf", join(tarballs, p.filename), "-C", into, "--strip-components=1"]);
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }))
      if (!dep.startsWith("@attractor/")) declared.add(dep);
  }
  // What npm would hoist: every declared dependency, from this repository's install (its own
  // dependencies resolve from there, through the link's real path).
  for (const dep of declared) {
    const link = join(project, "node_modules", dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(repo, "node_modules", dep)), link, "dir");
  }
  writeFileSync(join(project, "main.ts"), PROGRAM);
}, 180_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("packed packages", () => {
  it("carry every file their package.json points at, declarations included", () => {
    for (const pkg of PACKAGES) {
      const manifest = manifestOf(pkg);
      const files = new Set(packed.get(manifest.name)?.files.map((f) => f.path));
      const wanted: string[] = declaredFiles(manifest);
      expect(wanted.filter((f) => f.endsWith(".d.ts")).length, manifest.name).toBeGreaterThan(0);
      expect(
        wanted.filter((f) => !files.has(f)),
        manifest.name,
      ).toEqual([]);
    }
    expect(packed.get("@attractor/cli")?.files.map((f) => f.path)).toContain("dist/bundle/attractor.js");
  });

  it("depend on their siblings by exact version", () => {
    const versions = new Map(PACKAGES.map((p) => [manifestOf(p).name, manifestOf(p).version]));
    for (const pkg of PACKAGES) {
      const manifest = manifestOf(pkg);
      for (const deps of [manifest.dependencies, manifest.peerDependencies, manifest.devDependencies])
        for (const [name, range] of Object.entries(deps ?? {}))
          if (versions.has(name)) expect(range, `${manifest.name} → ${name}`).toBe(versions.get(name));
    }
  });

  it("build before packing and refuse to pack without their build", () => {
    for (const pkg of PACKAGES)
      expect(manifestOf(pkg).scripts?.prepack, pkg).toMatch(/check-package-files\.mjs/);
    // A package folder whose build is missing: the check fails and names what is missing.
    const unbuilt = join(scratch, "unbuilt");
    mkdirSync(unbuilt);
    cpSync(join(repo, "packages", "agent", "package.json"), join(unbuilt, "package.json"));
    const run = spawnSync(process.execPath, [join(repo, "scripts", "check-package-files.mjs"), unbuilt], {
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^@attractor\/agent: the build did not produce .*dist\/index\.d\.ts, dist\/index\.js/,
    );
  });

  it("type-check under --strict without skipLibCheck, with only their declared dependencies", () => {
    // What `tsc --strict` does in an empty project: default libraries, every @types package the
    // install put in node_modules/@types (only those the packages declare).
    const program = ts.createProgram([join(project, "main.ts")], {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? relative(project, d.file.fileName) : "(options)";
      return `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    expect(problems).toEqual([]);
    // The program really read the packages' declarations from the unpacked folders.
    const read = program.getSourceFiles().map((f) => relative(project, f.fileName));
    expect(read).toContain("node_modules/@attractor/agent/dist/index.d.ts");
    expect(read).toContain("node_modules/@attractor/llm/dist/index.d.ts");
    expect(read).toContain("node_modules/@attractor/runtime/dist/index.d.ts");
  }, 300_000); // every declaration file of every dependency is checked: a minute or more on two cores

  it("load from the unpacked layout and run the program", () => {
    const js = ts.transpileModule(PROGRAM, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
    }).outputText;
    writeFileSync(join(project, "main.mjs"), js);
    const run = spawnSync(process.execPath, ["main.mjs"], {
      cwd: project,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    const printed = JSON.parse(run.stdout);
    expect(printed.functions).toEqual(["function", "function", "echo"]);
    for (const [entry, count] of Object.entries(printed.entries)) expect(count, entry).toBeGreaterThan(0);
    // The loop ran the built-in tools and the program's own, whose arguments were validated.
    // Calls of one round run concurrently: their ends come in any order.
    const sorted = (results: [string, boolean][]) =>
      [...results].sort((a, b) => `${a}`.localeCompare(`${b}`));
    expect(sorted(printed.results)).toEqual(
      sorted([
        ["read_file", false],
        ["grep", false],
        ["glob", false],
        ["count_chars", false],
        ["count_chars", true],
        ["edit_file", false],
        ["write_file", false],
        ["shell", false],
      ]),
    );
    expect(printed.shell).toEqual(["none", true, 2]);
    expect(printed.app).toBe("export const greeting = 'hi';\n");
    expect(printed.notes).toBe("done");
  }, 60_000);
});
