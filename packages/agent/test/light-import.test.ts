// Importing the libraries loads none of the heavy packages they use only for some tasks: the
// provider SDKs, undici, ssh2, the MCP SDK, the language-server protocol and YAML load on first
// use. A child process imports the built package (as an embedder does) with a loader hook that
// records every module the ES module loader loads, and CommonJS require() calls besides.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../..", import.meta.url));

const HEAVY = [
  "openai",
  "@anthropic-ai/sdk",
  "@google/genai",
  "undici",
  "ssh2",
  "@modelcontextprotocol/sdk",
  "vscode-languageserver-protocol",
  "vscode-jsonrpc",
  "yaml",
] as const;

/** The packages (by node_modules folder) a fresh process loads for `import(entry)`, then `import(after)`. */
function packagesLoaded(entry: string, after?: string): { before: string[]; after: string[] } {
  const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
  const script = `
import { Module, register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const seen = new Set();
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => seen.add(url));
port1.unref();
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  try { seen.add(Module._resolveFilename(request, parent, isMain)); } catch {}
  return loaded;
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 50)); // the hook's last messages
const packages = () => [...new Set([...seen].flatMap((u) => {
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(decodeURIComponent(u));
  return m ? [m[1]] : [];
}))].sort();
await import(${JSON.stringify(entry)});
await settle();
const before = packages();
${after ? `await import(${JSON.stringify(after)}); await settle();` : ""}
console.log(JSON.stringify({ before, after: packages() }));
`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: repo,
    encoding: "utf8",
    timeout: 30_000,
  });
  if (run.status !== 0) throw new Error(`the child failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe("importing the libraries", () => {
  it("@attractor/agent loads no provider SDK, undici, ssh2, MCP SDK, LSP or YAML package", () => {
    // Loading openai afterwards shows the hook sees such a package when it is loaded.
    const { before, after } = packagesLoaded("@attractor/agent", "openai");
    expect(before).toContain("ajv"); // the hook saw the import itself (llm loads ajv)
    expect(before.filter((p) => (HEAVY as readonly string[]).includes(p))).toEqual([]);
    expect(after).toContain("openai");
  });

  it("@attractor/llm loads no provider SDK or undici", () => {
    const { before, after } = packagesLoaded("@attractor/llm", "@anthropic-ai/sdk");
    expect(before.filter((p) => (HEAVY as readonly string[]).includes(p))).toEqual([]);
    expect(after).toContain("@anthropic-ai/sdk");
  });
});
