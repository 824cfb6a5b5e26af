// Code intelligence on this repository's own TypeScript: the first find_definition (the
// language server's start and project load included), then warm find_definition and
// find_references, each beside `rg -w` for the same symbol measured in the same run. Then the
// cost of errors after edits: edit_file on a small fixture project with the wait for the
// server's report, against the same edit without it.
// Run after `npm run build`: node bench/lsp.mjs   (RUNS=20 warm queries each)
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeIntelligence, editFileTool, LocalExecutionEnvironment } from "../packages/agent/dist/index.js";

const RUNS = Number(process.env.RUNS ?? 20);
const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const SYMBOL = "LocalExecutionEnvironment";
// A use of the symbol (`new LocalExecutionEnvironment(`) in another package than its definition.
const USE_FILE = "packages/runtime/src/runtime/runtime.ts";
const useLine =
  readFileSync(join(repo, USE_FILE), "utf8")
    .split("\n")
    .findIndex((l) => l.includes(`new ${SYMBOL}(`)) + 1;
const USE = { path: USE_FILE, symbolName: SYMBOL, line: useLine };

const env = new LocalExecutionEnvironment({ workingDirectory: repo });
const intelligence = new CodeIntelligence({ environment: env });
if (!(await intelligence.available())) {
  console.log("no TypeScript language server found (npm install first); skipped");
  process.exit(0);
}
const tools = Object.fromEntries(intelligence.tools().map((t) => [t.definition.name, t]));
const call = async (name, args) => {
  const r = await tools[name].executor(args, env, { toolCallId: "bench" });
  const out = typeof r === "string" ? { output: r } : r;
  if (out.isError) throw new Error(`${name}: ${out.output}`);
  return out.output;
};

function rg() {
  return new Promise((resolve, reject) => {
    const child = spawn("rg", ["-n", "-w", "--no-heading", SYMBOL, "packages"], { cwd: repo });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("close", () => resolve(out));
  });
}

async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

async function series(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push((await timed(fn)).ms);
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
}

const rgFirst = await timed(rg);
const first = await timed(() => call("find_definition", USE));
const definitionCount = (first.value.match(/^\S+:\d+:\d+$/gm) ?? []).length;
const refs = await call("find_references", USE);
const warmDefinition = await series(() => call("find_definition", USE));
const warmReferences = await series(() => call("find_references", USE));
const rgWarm = await series(rg);
await intelligence.shutdown();

const rgLines = rgFirst.value.trim().split("\n").length;
const fmt = (ms) => `${ms.toFixed(1)} ms`;
console.log(
  `symbol ${SYMBOL}: ${refs.split("\n")[0]} (rg -w: ${rgLines} matching lines, comments and tests included)`,
);
console.log(
  `first find_definition (server start + project load): ${fmt(first.ms)} -> ${definitionCount} location(s); rg first run ${fmt(rgFirst.ms)}`,
);
console.log(
  `warm find_definition: median ${fmt(warmDefinition.median)}, p90 ${fmt(warmDefinition.p90)}; ratio to rg ${(warmDefinition.median / rgWarm.median).toFixed(2)}x`,
);
console.log(
  `warm find_references: median ${fmt(warmReferences.median)}, p90 ${fmt(warmReferences.p90)}; ratio to rg ${(warmReferences.median / rgWarm.median).toFixed(2)}x`,
);
console.log(`rg -w ${SYMBOL} packages: median ${fmt(rgWarm.median)}, p90 ${fmt(rgWarm.p90)} (RUNS=${RUNS})`);

// ---- errors after edits ----
const fixture = mkdtempSync(join(tmpdir(), "bench-lsp-"));
cpSync(join(repo, "packages/agent/test/fixtures/lsp/typescript"), fixture, { recursive: true });
const fixtureEnv = new LocalExecutionEnvironment({
  workingDirectory: fixture,
  baseEnv: { ...process.env, PATH: `${join(repo, "node_modules/.bin")}:${process.env.PATH}` },
});
const edits = new CodeIntelligence({ environment: fixtureEnv });
const hook = edits.afterToolCall();
const edit = editFileTool();
let flip = false;
async function editOnce(withDiagnostics) {
  flip = !flip;
  const [from, to] = flip
    ? ["totalArea(shapes)}", "totalArea(shapes) }"]
    : ["totalArea(shapes) }", "totalArea(shapes)}"];
  const args = { file_path: "src/main.ts", old_string: from, new_string: to };
  const result = await edit.executor(args, fixtureEnv, { toolCallId: "e" });
  if (withDiagnostics) {
    const info = { callId: "e", toolName: "edit_file", arguments: args };
    await hook(info, { output: result.output, isError: false, details: result.details });
  }
}
const coldEdit = await timed(() => editOnce(true));
// The project may still be loading after the bounded first edit: let it finish before the warm runs.
const diagnosticsTool = edits.tools().find((t) => t.definition.name === "get_diagnostics");
await diagnosticsTool.executor({ path: "src/main.ts" }, fixtureEnv, { toolCallId: "w" });
const plainEdit = await series(() => editOnce(false));
const checkedEdit = await series(() => editOnce(true));
await edits.shutdown();
rmSync(fixture, { recursive: true, force: true });
console.log(
  `first edit with errors checked (server start included, bounded by the 1500 ms wait): ${fmt(coldEdit.ms)}`,
);
console.log(
  `edit_file with errors checked (warm server): median ${fmt(checkedEdit.median)}, p90 ${fmt(checkedEdit.p90)}; without: median ${fmt(plainEdit.median)}; ratio ${(checkedEdit.median / plainEdit.median).toFixed(1)}x`,
);
