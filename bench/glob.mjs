// glob on a generated 50k-file source tree: the glob tool (rg --files listing, JavaScript walk)
// side by side with raw `rg --files`, raw `rg --files --glob` and the same plus a stat of each
// match (what newest-first order costs at least), on the same tree with the same ripgrep binary,
// measured in the same run; "**/*.ts" (two files in three) and a narrow
// "pkg3/**/file7.ts". Median of RUNS after a warm-up; heap growth during one glob call.
// Run after `npm run build`: node --expose-gc bench/glob.mjs   (FILES=…, RUNS=…)
import { spawnSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { globTool, LocalExecutionEnvironment, ripgrepCommand } from "../packages/agent/dist/index.js";
import { ripgrepAvailable } from "../packages/agent/dist/internals.js";
import { median, sourceTree } from "./support/source-tree.mjs";

const FILES = Number(process.env.FILES ?? 50_000);
const RUNS = Number(process.env.RUNS ?? 5);
const dir = sourceTree(FILES);
const rg = ripgrepCommand();
const patterns = ["**/*.ts", "pkg3/**/file7.ts"];
console.log(`glob, ${FILES} files, newest first, median of ${RUNS} (ripgrep: ${rg})`);
console.log(`${"".padEnd(28)}${patterns.map((p) => `${p.padStart(18)}${"ratio".padStart(8)}`).join("")}`);
const rows = [];
const raw = (args) => () =>
  spawnSync(rg, ["--no-config", "--no-require-git", ...args], { cwd: dir, maxBuffer: 1 << 30 });
if (ripgrepAvailable()) {
  const withGlob = [];
  for (const p of patterns) withGlob.push(await median(raw(["--files", "--glob", p]), RUNS));
  rows.push(["raw rg --files --glob", withGlob]);
  const all = await median(raw(["--files"]), RUNS);
  rows.push(["raw rg --files (all)", patterns.map(() => all)]);
  // The least a newest-first glob can do: list, then stat every match for its mtime and sort.
  const listAndStat = [];
  for (const p of patterns) {
    listAndStat.push(
      await median(() => {
        const out = raw(["--files", "--null", "--glob", p])().stdout.toString().split("\0");
        return out
          .filter((f) => f !== "")
          .map((f) => [f, statSync(join(dir, f)).mtimeMs])
          .sort((a, b) => b[1] - a[1]);
      }, RUNS),
    );
  }
  rows.push(["raw rg --files --glob + stat", listAndStat]);
}
const heap = {};
for (const engine of ripgrepAvailable() ? ["ripgrep", "javascript"] : ["javascript"]) {
  const env = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: engine });
  const times = [];
  for (const pattern of patterns) {
    times.push(await median(() => globTool().executor({ pattern }, env, { toolCallId: "b" }), RUNS));
  }
  rows.push([`glob tool (${engine})`, times]);
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  await globTool().executor({ pattern: patterns[0] }, env, { toolCallId: "b" });
  heap[engine] = ((process.memoryUsage().heapUsed - before) / 1e6).toFixed(1);
}
const base = rows[0][1];
for (const [name, times] of rows) {
  const cells = times.map(
    (ms, i) => `${ms.toFixed(1).padStart(15)} ms${(ms / base[i]).toFixed(2).padStart(7)}x`,
  );
  console.log(`${name.padEnd(28)}${cells.join("")}`);
}
console.log(
  `(ratios against ${rows[0][0]} for the same pattern; heap growth during one "${patterns[0]}" glob: ${Object.entries(
    heap,
  )
    .map(([e, mb]) => `${e} ${mb} MB`)
    .join(", ")})`,
);
rmSync(dir, { recursive: true, force: true });
