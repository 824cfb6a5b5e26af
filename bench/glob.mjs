// glob "**/*.ts" on a generated tree of 100k files, against baselines measured in the same run:
// a plain recursive readdir walk, the same walk plus a stat of every match (the least work a
// newest-first glob can do), and raw `rg --files` when installed. Median of RUNS after a warm-up.
// Also reports heap growth during one glob call.
// Run after `npm run build`: node --expose-gc bench/glob.mjs   (FILES=…, RUNS=…)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { globTool, LocalExecutionEnvironment, ripgrepAvailable } from "../packages/agent/dist/index.js";

const FILES = Number(process.env.FILES ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 3);
const dir = mkdtempSync(join(tmpdir(), "bench-glob-"));
for (let d = 0; d < FILES / 200; d++) {
  const sub = join(dir, `m${d % 50}`, `d${d}`);
  mkdirSync(sub, { recursive: true });
  for (let f = 0; f < 200; f++) writeFileSync(join(sub, f % 2 ? `f${f}.ts` : `f${f}.md`), "");
}
writeFileSync(join(dir, ".gitignore"), "dist/\n");

function walk(p, out) {
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(p, e.name), out);
    else if (e.name.endsWith(".ts")) out.push(join(p, e.name));
  }
  return out;
}
async function median(fn) {
  await fn();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const rows = [
  ["readdir walk", await median(() => walk(dir, []).length)],
  [
    "walk + stat, sorted",
    await median(() =>
      walk(dir, [])
        .map((p) => [p, statSync(p).mtimeMs])
        .sort((a, b) => b[1] - a[1]),
    ),
  ],
];
if (ripgrepAvailable())
  rows.push([
    "raw rg --files",
    await median(() => spawnSync("rg", ["--files", "--glob", "*.ts"], { cwd: dir, maxBuffer: 1 << 28 })),
  ]);
const env = new LocalExecutionEnvironment({ workingDirectory: dir });
let total = 0;
const glob = async () => {
  const out = await globTool().executor({ pattern: "**/*.ts" }, env, { toolCallId: "b" });
  total = out.details?.fileCount ?? 0;
};
rows.push(["glob tool", await median(glob)]);
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
await glob();
const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
const base = rows[0][1];
const fair = rows[1][1];
for (const [name, ms] of rows)
  console.log(
    `${name.padEnd(20)} ${ms.toFixed(0).padStart(7)} ms   ${(ms / base).toFixed(2)}x of readdir walk, ${(ms / fair).toFixed(2)}x of walk + stat`,
  );
console.log(
  `(${FILES} files, ${total} matches, median of ${RUNS}, heap growth during one glob ${heapGrowth.toFixed(1)} MB)`,
);
rmSync(dir, { recursive: true, force: true });
