// glob "**/*.ts" on a generated tree of 100k files, against raw `rg --files` (when installed)
// and a plain recursive readdir walk, measured in the same run. Also reports heap growth.
// Run after `npm run build`: node --expose-gc bench/glob.mjs
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { globTool, LocalExecutionEnvironment, ripgrepAvailable } from "../packages/agent/dist/index.js";

const FILES = Number(process.env.FILES ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "bench-glob-"));
for (let d = 0; d < FILES / 200; d++) {
  const sub = join(dir, `m${d % 50}`, `d${d}`);
  mkdirSync(sub, { recursive: true });
  for (let f = 0; f < 200; f++) writeFileSync(join(sub, f % 2 ? `f${f}.ts` : `f${f}.md`), "");
}

function walk(p, out) {
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(p, e.name), out);
    else if (e.name.endsWith(".ts")) out.push(join(p, e.name));
  }
  return out;
}
async function time(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const rows = [["readdir walk", await time(() => walk(dir, []).length)]];
if (ripgrepAvailable())
  rows.push([
    "raw rg --files",
    await time(() => spawnSync("rg", ["--files", "--glob", "*.ts"], { cwd: dir, maxBuffer: 1 << 28 })),
  ]);
const env = new LocalExecutionEnvironment({ workingDirectory: dir });
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
let total = 0;
rows.push([
  "glob tool",
  await time(async () => {
    const out = await globTool().executor({ pattern: "**/*.ts" }, env, { toolCallId: "b" });
    total = out.details?.fileCount ?? 0;
  }),
]);
const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
const base = rows[0][1];
for (const [name, ms] of rows)
  console.log(
    `${name.padEnd(16)} ${ms.toFixed(0).padStart(7)} ms   ${(ms / base).toFixed(2)}x of readdir walk`,
  );
console.log(`(${FILES} files, ${total} matches, heap growth during glob ${heapGrowth.toFixed(1)} MB)`);
rmSync(dir, { recursive: true, force: true });
