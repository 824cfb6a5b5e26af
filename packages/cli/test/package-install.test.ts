// The packages as users get them: `npm pack` of each, the command installed from its tarball into an
// empty directory (no network: it has no dependencies), and the libraries unpacked beside their
// declared dependencies only. What the tarballs hold is checked file by file.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, requireBuiltCli, runCliProcess, startScriptedModel } from "../src/testing/index.js";
import { anthropicTerminalEnv, startCliInTmux } from "./support/tmux.js";

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, "../../..");
const NAMES = ["llm", "agent", "fleet", "cli"] as const;
type Name = (typeof NAMES)[number];

interface Packed {
  readonly tarball: string;
  /** Where the tarball was unpacked (its `package/` folder). */
  readonly dir: string;
  readonly files: readonly string[];
  // biome-ignore lint/suspicious/noExplicitAny: a package.json read back as data
  readonly manifest: any;
}

let work: string;
const packed = {} as Record<Name, Packed>;

/** All files below a directory, relative to it. */
async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else out.push(rel);
  }
  return out;
}

beforeAll(async () => {
  requireBuiltCli();
  work = await mkdtemp(join(tmpdir(), "attractor-pack-"));
  const { stdout } = await run(
    "npm",
    // --ignore-scripts: each package's prepack builds it, which would rebuild the command under the
    // other test files running it; the tarballs hold the build this run was started with.
    [
      "pack",
      "--json",
      "--ignore-scripts",
      "--pack-destination",
      work,
      ...NAMES.flatMap((n) => ["-w", `packages/${n}`]),
    ],
    { cwd: REPO, maxBuffer: 64 * 1024 * 1024 },
  );
  const reports = JSON.parse(stdout) as { name: string; filename: string }[];
  for (const name of NAMES) {
    const report = reports.find((r) => r.name === `@attractor/${name}`);
    if (!report) throw new Error(`npm pack made no tarball for @attractor/${name}`);
    const tarball = join(work, report.filename.replace(/^@/, "").replace(/\//, "-"));
    const dir = join(work, `unpacked-${name}`);
    await mkdir(dir);
    await run("tar", ["-xzf", tarball, "-C", dir]);
    const root = join(dir, "package");
    packed[name] = {
      tarball,
      dir: root,
      files: await listFiles(root),
      manifest: JSON.parse(await readFile(join(root, "package.json"), "utf8")),
    };
  }
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the tarballs", () => {
  it.each(NAMES)("@attractor/%s ships its licence and readme, and no build leftovers", (name) => {
    const { files } = packed[name];
    expect(files).toContain("LICENSE");
    expect(files).toContain("README.md");
    expect(files).toContain("package.json");
    expect(files.filter((f) => /tsbuildinfo|(^|\/)meta\.json$|\.test\.tsx?$/.test(f))).toEqual([]);
  });

  it.each(NAMES)("@attractor/%s: every source map points at files the tarball ships", async (name) => {
    const { dir, files } = packed[name];
    const maps = files.filter((f) => f.endsWith(".map"));
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot } = JSON.parse(await readFile(join(dir, map), "utf8")) as {
        sources: string[];
        sourceRoot?: string;
      };
      for (const source of sources) {
        const target = resolve(dir, dirname(map), sourceRoot ?? "", source);
        if (!existsSync(target)) missing.push(`${map} → ${source}`);
      }
    }
    // A JavaScript file naming a map the tarball does not carry is the same fault.
    for (const file of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
      const text = await readFile(join(dir, file), "utf8");
      const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
      if (ref && !ref.startsWith("data:") && !existsSync(resolve(dir, dirname(file), ref)))
        missing.push(`${file} → ${ref}`);
    }
    expect(missing).toEqual([]);
  });

  it("every package states the same engines, a repository and a homepage", async () => {
    const root = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"));
    for (const name of NAMES) {
      const { manifest } = packed[name];
      expect(manifest.engines).toEqual(root.engines);
      expect(manifest.repository?.url).toMatch(/^git\+https:\/\//);
      expect(manifest.repository?.directory).toBe(`packages/${name}`);
      expect(manifest.homepage).toMatch(/^https:\/\//);
      expect(manifest.license).toBe("Apache-2.0");
    }
  });

  it("the command's package has no runtime dependencies and its bin is in the tarball", () => {
    const { manifest, files } = packed.cli;
    expect(manifest.dependencies ?? {}).toEqual({});
    // Only the ripgrep binary, optional: without it searches use rg on PATH or JavaScript.
    expect(Object.keys(manifest.optionalDependencies ?? {})).toEqual(["@vscode/ripgrep"]);
    expect(files).toContain(manifest.bin.attractor.replace(/^\.\//, ""));
    for (const entry of Object.values(manifest.exports) as ({ import: string } | string)[]) {
      const target = typeof entry === "string" ? entry : entry.import;
      expect(files).toContain(target.replace(/^\.\//, ""));
    }
  });
});

describe("the committed launcher", () => {
  it("says what to do when the bundle has not been built", async () => {
    const clone = join(work, "unbuilt", "bin");
    await mkdir(clone, { recursive: true });
    await writeFile(join(clone, "attractor.js"), await readFile(join(REPO, "packages/cli/bin/attractor.js")));
    const result = await run(process.execPath, [join(clone, "attractor.js"), "--version"]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(result).toMatchObject({ code: 1 });
    expect((result as { stderr: string }).stderr).toContain("the command is not built");
    expect((result as { stderr: string }).stderr).toContain("npm run build");
  });

  it("is what npm links as the workspace's bin", async () => {
    const link = join(REPO, "node_modules", ".bin", "attractor");
    const { stdout } = await run(link, ["--version"]);
    expect(stdout.trim()).toBe(packed.cli.manifest.version);
  });
});

describe("the command installed from its tarball", () => {
  let app: string;
  let bin: string;

  beforeAll(async () => {
    app = join(work, "app");
    await mkdir(app);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
    // --offline: with no dependencies, installing needs nothing but the tarball (and the npm cache
    // for the optional ripgrep binary, which is skipped when it is not there).
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", packed.cli.tarball], {
      cwd: app,
    });
    bin = join(app, "node_modules", ".bin", "attractor");
  }, 120_000);

  it("installs nothing but itself and, when it can, the ripgrep binary", async () => {
    const installed = (await readdir(join(app, "node_modules"))).filter((n) => !n.startsWith("."));
    expect(installed.filter((n) => n !== "@vscode")).toEqual(["@attractor"]);
    expect(await readdir(join(app, "node_modules", "@attractor"))).toEqual(["cli"]);
    if (installed.includes("@vscode")) {
      const vscode = await readdir(join(app, "node_modules", "@vscode"));
      expect(vscode.every((n) => n.startsWith("ripgrep"))).toBe(true);
    }
  });

  it("prints its version", async () => {
    const { stdout } = await run(bin, ["--version"], { cwd: app });
    expect(stdout.trim()).toBe(packed.cli.manifest.version);
  });

  it("runs a headless task", async () => {
    const model = await startScriptedModel("anthropic", [{ text: "Installed and answering." }]);
    try {
      const project = join(work, "headless-project");
      await mkdir(project, { recursive: true });
      const result = await runCliProcess(["-p", "say something"], {
        cwd: project,
        env: cleanEnv(join(work, "headless-home"), model.env()),
        nodeArgs: [],
        entry: bin,
      });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe("Installed and answering.\n");
      expect(result.code).toBe(0);
      expect(model.seen()[0]?.userTexts).toEqual(["say something"]);
    } finally {
      await model.close();
    }
  });

  it("judges shell commands with the bash parser it ships", async () => {
    expect(packed.cli.files).toEqual(
      expect.arrayContaining(["dist/bundle/tree-sitter-bash.wasm", "dist/bundle/web-tree-sitter.wasm"]),
    );
    const model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "ls" } }] },
      { calls: [{ name: "shell", args: { command: "cat <<EOF\n$(touch canary)\nEOF" } }] },
      { text: "Listed." },
    ]);
    try {
      const project = join(work, "shell-project");
      await mkdir(project, { recursive: true });
      await writeFile(join(project, "marker.txt"), "here\n");
      const result = await runCliProcess(["-p", "list"], {
        cwd: project,
        env: cleanEnv(join(work, "shell-home"), model.env()),
        nodeArgs: [],
        entry: bin,
      });
      expect(result.code, result.stderr).toBe(0);
      const [listed, denied] = model.seen().at(-1)?.toolResults ?? [];
      expect(listed).toContain("marker.txt");
      expect(denied).toMatch(/Permission denied/);
      expect(existsSync(join(project, "canary"))).toBe(false);
    } finally {
      await model.close();
    }
  });

  it("starts the interactive UI", async () => {
    const model = await startScriptedModel("anthropic", []);
    const root = join(work, "ui");
    await mkdir(join(root, "project"), { recursive: true });
    await mkdir(join(root, "user"), { recursive: true });
    const terminal = startCliInTmux(
      "pack-ui",
      join(root, "project"),
      anthropicTerminalEnv(root, model.server.port),
      [],
      bin,
    );
    try {
      await terminal.waitFor("Ask anything");
    } finally {
      terminal.kill();
      await model.close();
    }
  });
});

describe("the libraries unpacked beside their declared dependencies", () => {
  it("run a session end to end against a local server", async () => {
    const lib = join(work, "lib");
    const modules = join(lib, "node_modules");
    await mkdir(join(modules, "@attractor"), { recursive: true });
    for (const name of ["llm", "agent"] as const) {
      // Unpacked in place (Node resolves a symlinked package from its real path, not from here).
      const target = join(modules, "@attractor", name);
      await mkdir(target);
      await run("tar", ["-xzf", packed[name].tarball, "-C", target, "--strip-components=1"]);
      // Only what the manifest declares is reachable: an undeclared import fails to resolve.
      for (const dep of Object.keys(packed[name].manifest.dependencies ?? {})) {
        if (dep.startsWith("@attractor/") || existsSync(join(modules, dep))) continue;
        await mkdir(dirname(join(modules, dep)), { recursive: true });
        await symlink(join(REPO, "node_modules", dep), join(modules, dep));
      }
    }
    const script = join(lib, "embed.mjs");
    await writeFile(
      script,
      [
        'import { createAnthropicProfile, LocalExecutionEnvironment, Session } from "@attractor/agent";',
        'import { Client } from "@attractor/llm";',
        "const session = new Session({",
        '  profile: createAnthropicProfile("claude-sonnet-4-5"),',
        "  environment: new LocalExecutionEnvironment({ workingDirectory: process.cwd() }),",
        "  client: Client.fromEnv(),",
        "});",
        "let answer = '';",
        "session.subscribe((e) => { if (e.kind === 'assistant_text_end') answer = e.data.text; });",
        'await session.submit("hello");',
        "await session.close();",
        "console.log(answer);",
      ].join("\n"),
    );
    const model = await startScriptedModel("anthropic", [{ text: "The library works from its tarball." }]);
    try {
      const { stdout } = await run(process.execPath, [script], {
        cwd: lib,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...model.env() },
      });
      expect(stdout.trim()).toBe("The library works from its tarball.");
    } finally {
      await model.close();
    }
  });
});
