// The packages as an embedder gets them: `npm pack` of each workspace (its built dist, as
// `npm run build` left it), unpacked into an empty project's node_modules the way npm lays them
// out, with only the dependencies the packed manifests declare beside them. No registry is needed:
// the declared dependencies are linked from this repository's install. A strict TypeScript program
// (no skipLibCheck) importing every public entry type-checks, and runs. The same with a real
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
const PACKAGES = ["llm", "agent", "fleet", "cli"] as const;

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

/** A strict program using every public entry the way an embedder would. */
const PROGRAM = `import * as llmTesting from "@attractor/llm/testing";
import { Client, generate, type Tool, tool } from "@attractor/llm";
import * as agentTesting from "@attractor/agent/testing";
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
import * as runtime from "@attractor/cli/runtime";
import * as headless from "@attractor/cli/headless";
import * as config from "@attractor/cli/config";

const parameters = Type.Object({ path: Type.String() });
const count = defineTool({
  name: "count",
  description: "Counts a path's characters.",
  parameters,
  execute: async ({ path }: Static<typeof parameters>) => String(path.length),
});
const echo: Tool<{ text: string }> = tool({
  name: "echo",
  description: "Echoes.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: async ({ text }: { text: string }) => text,
});
const session = (client: Client): Session =>
  new Session({
    profile: createAnthropicProfile("claude-sonnet-4-5"),
    environment: new LocalExecutionEnvironment({ workingDirectory: process.cwd() }),
    client,
    tools: [count],
  });
const kinds = (events: readonly SessionEvent[]): string[] => events.map((e) => e.kind);
const entries = { llmTesting, agentTesting, fleet, runtime, headless, config };
console.log(
  JSON.stringify({
    entries: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, Object.keys(v).length])),
    functions: [typeof generate, typeof session, typeof kinds, echo.name],
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
    expect(run.stderr).toContain(
      "@attractor/agent: the build did not produce dist/index.d.ts, dist/index.js",
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
    expect(printed.functions).toEqual(["function", "function", "function", "echo"]);
    for (const [entry, count] of Object.entries(printed.entries)) expect(count, entry).toBeGreaterThan(0);
  }, 60_000);
});
