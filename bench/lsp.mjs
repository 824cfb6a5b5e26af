// Code intelligence on this repository's own TypeScript: the first find_definition (the
// language server's start and project load included), then warm find_definition and
// find_references, each beside `rg -w` for the same symbol measured in the same run.
// Run after `npm run build`: node bench/lsp.mjs   (RUNS=20 warm queries each)
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeIntelligence, LocalExecutionEnvironment } from "../packages/agent/dist/index.js";

const RUNS = Number(process.env.RUNS ?? 20);
const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const SYMBOL = "LocalExecutionEnvironment";
// A use of the symbol in another file than its definition.
const USE = { path: "packages/cli/src/runtime/runtime.ts", symbolName: SYMBOL, line: 220 };

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
