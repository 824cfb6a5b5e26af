import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  buggyProject,
  CLI_PATH,
  cleanEnv,
  type Provider,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  startScriptedModel,
} from "../src/testing/index.js";

const RECORDER = join(dirname(fileURLToPath(import.meta.url)), "support", "record-imports.mjs");

beforeAll(() => {
  requireBuiltCli();
});

let root: string;
let project: string;
let remove: () => Promise<void>;
let model: ScriptedModel | undefined;

beforeEach(async () => {
  ({ root, project, remove } = await buggyProject());
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await remove();
});

/**
 * The packages bundled into each file of the command, from the bundler's metafiles: the ES
 * modules, the code-cached headless bundle and the files of packages it requires when used.
 */
async function packagesPerBundleFile(): Promise<Map<string, Set<string>>> {
  const packageDir = resolve(dirname(CLI_PATH), "..", "..");
  const files = new Map<string, Set<string>>();
  for (const metafile of ["meta.json", "meta-headless.json", "meta-vendor.json"]) {
    const meta = JSON.parse(await readFile(join(dirname(CLI_PATH), metafile), "utf8")) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    for (const [output, { inputs }] of Object.entries(meta.outputs)) {
      const names = new Set<string>();
      for (const input of Object.keys(inputs)) {
        const m =
          /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input) ?? /^\.\.\/(llm|agent)\/dist\//.exec(input);
        names.add(m ? (m[1] as string) : input.startsWith("dist/") ? "cli" : input);
      }
      files.set(pathToFileURL(resolve(packageDir, output)).href, names);
    }
  }
  return files;
}

/** The code-cached headless bundle's URL, and the packages compiled into it whether used or not. */
const HEADLESS_BUNDLE = pathToFileURL(join(dirname(CLI_PATH), "command-headless.cjs")).href;

/**
 * Runs the CLI with a resolve hook logging every module it loads; returns the packages whose
 * code those files hold (the command is bundled: a file holds parts of several packages).
 */
async function loadedPackages(
  args: string[],
  env: Record<string, string>,
  launch: Launch = QUICK,
): Promise<Set<string>> {
  const log = join(root, "imports.log");
  const result = await runCliProcess(args, {
    cwd: project,
    env: cleanEnv(root, { ...env, ...launch.env, ATTRACTOR_IMPORT_LOG: log }),
    nodeArgs: ["--import", RECORDER],
  });
  expect(result.code, result.stderr).toBe(0);
  const perFile = await packagesPerBundleFile();
  const urls = (await readFile(log, "utf8")).trim().split("\n");
  // Each run takes the path it is meant to.
  expect(urls.includes(HEADLESS_BUNDLE), "the code-cached headless bundle").toBe(launch.headlessBundle);
  const names = new Set<string>();
  for (const url of urls) {
    if (url.startsWith("node:") || url === pathToFileURL(RECORDER).href) continue;
    const inFile = perFile.get(url);
    // Every file the command loads is one of its bundle's: nothing is resolved from node_modules.
    expect(inFile, `${url} is not a file of the bundled command`).toBeDefined();
    for (const name of inFile ?? []) names.add(name);
  }
  return names;
}

const SDKS: Readonly<Record<Exclude<Provider, "openai-compatible">, string>> = {
  anthropic: "@anthropic-ai/sdk",
  openai: "openai",
  gemini: "@google/genai",
};

/**
 * How a headless run starts: from the code-cached CommonJS bundle (the default), or from the ES
 * modules (ATTRACTOR_CODE_CACHE=off, and every interactive run). The bundle compiles in the MCP
 * SDK, whose code runs only when used; the providers' SDKs are files of their own.
 */
interface Launch {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly headlessBundle: boolean;
  /** Packages in the headless bundle's own file: loaded as a file whether used or not. */
  readonly compiledIn: readonly string[];
}
const LAUNCHES: readonly Launch[] = [
  {
    name: "the code-cached headless bundle",
    env: {},
    headlessBundle: true,
    compiledIn: ["@modelcontextprotocol/sdk"],
  },
  { name: "the ES modules", env: { ATTRACTOR_CODE_CACHE: "off" }, headlessBundle: false, compiledIn: [] },
];

describe.each(LAUNCHES)("start-up from $name loads only what the run needs", (launch) => {
  for (const provider of ["anthropic", "openai", "gemini", "openai-compatible"] as const) {
    it(`a headless ${provider} run loads neither Ink nor React nor another provider's SDK`, async () => {
      model = await startScriptedModel(provider, [{ text: "hi" }]);
      const loaded = await loadedPackages(["-p", "hello", ...model.flags()], model.env(), launch);
      expect(loaded.has("agent") && loaded.has("llm")).toBe(true);
      for (const ui of ["ink", "react", "marked"]) expect(loaded.has(ui), ui).toBe(false);
      // Language servers' protocol library waits for the first code-intelligence call.
      for (const lsp of ["vscode-jsonrpc", "vscode-languageserver-protocol"])
        expect(loaded.has(lsp), lsp).toBe(false);
      // OpenAI-compatible servers are spoken to through the openai SDK.
      const used = provider === "openai-compatible" ? "openai" : SDKS[provider];
      expect(loaded.has(used), used).toBe(true);
      for (const sdk of Object.values(SDKS))
        if (sdk !== used && !launch.compiledIn.includes(sdk)) expect(loaded.has(sdk), sdk).toBe(false);
      // No MCP server is configured: the MCP SDK stays unread.
      if (!launch.compiledIn.includes("@modelcontextprotocol/sdk"))
        expect(loaded.has("@modelcontextprotocol/sdk")).toBe(false);
    });
  }

  // Node's fetch classes cost about 30 ms to compile on first touch; the bundled SDKs build
  // requests with classes of their own and the requests go out over node:http.
  if (launch.headlessBundle)
    for (const provider of ["anthropic", "openai", "openai-compatible"] as const)
      it(`a headless ${provider} run with a tool round never loads Node's fetch implementation`, async () => {
        model = await startScriptedModel(provider, [
          { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
          { text: "done" },
        ]);
        await loadedPackages(["-p", "read math.js", ...model.flags()], model.env(), launch);
        const log = (await readFile(join(root, "imports.log"), "utf8")).split("\n");
        expect(log).not.toContain("node:internal/deps/undici/undici");
        // The tool round happened, with the file's text sent back to the model.
        const seen = model.seen();
        expect(seen.length).toBe(2);
        expect(JSON.stringify(seen[1]?.toolResults)).toContain("return a - b");
      });

  it("the bash parser is loaded on the first shell line that needs it, from the bundle, not at launch", async () => {
    model = await startScriptedModel("anthropic", [{ text: "hi" }]);
    const plain = await loadedPackages(["-p", "hello", ...model.flags()], model.env(), launch);
    expect(plain.has("web-tree-sitter")).toBe(false);
    await model.close();
    // Plain words are judged without the grammar.
    model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "ls src" } }] },
      { expect: (r) => (r.at(-1)?.includes("math.js") ? undefined : `ls gave ${r.at(-1)}`), text: "ok" },
    ]);
    const plainShell = await loadedPackages(["-p", "list", ...model.flags()], model.env(), launch);
    expect(plainShell.has("web-tree-sitter")).toBe(false);
    expect(model.seen().at(-1)?.toolResults.at(-1)).toContain("math.js");
    await model.close();
    model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "ls src | sort" } }] },
      { expect: (r) => (r.at(-1)?.includes("math.js") ? undefined : `ls gave ${r.at(-1)}`), text: "ok" },
    ]);
    const withShell = await loadedPackages(["-p", "list", ...model.flags()], model.env(), launch);
    expect(withShell.has("web-tree-sitter")).toBe(true);
    expect(model.seen().at(-1)?.toolResults.at(-1)).toContain("math.js");
  });

  it("a model slow to answer after a tool call gets the bash parser loaded while it waits", async () => {
    // The same plain line as above, which needs no grammar: only the wait for the answer loads it.
    model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "ls src" } }] },
      { delayMs: 1500, text: "ok" },
    ]);
    const slow = await loadedPackages(["-p", "list", ...model.flags()], model.env(), launch);
    expect(slow.has("web-tree-sitter")).toBe(true);
    expect(model.seen().at(-1)?.toolResults.at(-1)).toContain("math.js");
  });

  it("a run with an MCP server loads the MCP SDK from the bundle", async () => {
    const everything = join(
      dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
      "dist",
      "index.js",
    );
    await writeFile(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } },
      }),
    );
    await mkdir(join(root, "attractor"), { recursive: true });
    await writeFile(
      join(root, "attractor", "settings.json"),
      JSON.stringify({ enableAllProjectMcpServers: true }),
    );
    model = await startScriptedModel("anthropic", [{ text: "hi" }]);
    const loaded = await loadedPackages(["-p", "hello", ...model.flags()], model.env(), launch);
    expect(loaded.has("@modelcontextprotocol/sdk")).toBe(true);
    expect(model.seen()[0]?.tools).toContain("mcp__everything__echo");
  });
});

/** --version and --help start from the ES modules, whatever stdin is: they load less there. */
const QUICK: Launch = { name: "quick", env: {}, headlessBundle: false, compiledIn: [] };

describe("start-up of quick commands", () => {
  it("--version and --help load neither the agent nor the model client", async () => {
    for (const flag of ["--version", "--help"]) {
      const loaded = await loadedPackages([flag], {});
      expect(loaded.has("agent"), flag).toBe(false);
      expect(loaded.has("llm"), flag).toBe(false);
      expect(loaded.has("ajv"), flag).toBe(false);
    }
  });
});
