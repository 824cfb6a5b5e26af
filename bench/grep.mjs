// grep on a generated 50k-file source tree: the grep tool (ripgrep engine, JavaScript engine)
// side by side with raw `rg -n` on the same tree and the same ripgrep binary, measured in the same
// run, for a common pattern (every file matches: the tool stops once it has max_results) and a
// rare one (the whole tree is searched). Median of RUNS after a warm-up.
// Run after `npm run build`: node bench/grep.mjs   (FILES=…, RUNS=…)
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { grepTool, LocalExecutionEnvironment, ripgrepCommand } from "../packages/agent/dist/index.js";
import { ripgrepAvailable } from "../packages/agent/dist/internals.js";
import { median, sourceTree } from "./support/source-tree.mjs";

const FILES = Number(process.env.FILES ?? 50_000);
const RUNS = Number(process.env.RUNS ?? 5);
const dir = sourceTree(FILES);
const rg = ripgrepCommand();
const tool = grepTool();
const patterns = [
  ["common", "import"],
  ["rare", "rareNeedle"],
];
const engines = ripgrepAvailable() ? ["ripgrep", "javascript"] : ["javascript"];
console.log(`grep, ${FILES} files, max_results 100, median of ${RUNS} (ripgrep: ${rg})`);
console.log(
  `${"".padEnd(26)}${patterns.map(([name]) => `${name.padStart(12)}${"ratio".padStart(8)}`).join("")}`,
);
const rows = [];
if (ripgrepAvailable()) {
  const times = [];
  for (const [, p] of patterns) {
    times.push(
      await median(
        () =>
          spawnSync(rg, ["--no-config", "--no-require-git", "-n", p, "."], { cwd: dir, maxBuffer: 1 << 30 }),
        RUNS,
      ),
    );
  }
  rows.push(["raw rg -n (.gitignore on)", times]);
  // What a tool that kills rg after its limit pays: spawn, first 101 lines, kill.
  const firstLines = (pattern) =>
    new Promise((resolve) => {
      const child = spawn(rg, ["--no-config", "--no-require-git", "-n", pattern, "."], { cwd: dir });
      let lines = 0;
      child.stdout.on("data", (chunk) => {
        for (const byte of chunk) if (byte === 10) lines++;
        if (lines > 100) child.kill();
      });
      child.on("close", resolve);
    });
  const stopped = [];
  for (const [, p] of patterns) stopped.push(await median(() => firstLines(p), RUNS));
  rows.push(["raw rg -n, killed at 101", stopped]);
}
for (const engine of engines) {
  const env = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: engine });
  const times = [];
  for (const [, pattern] of patterns) {
    times.push(
      await median(() => tool.executor({ pattern, max_results: 100 }, env, { toolCallId: "b" }), RUNS),
    );
  }
  rows.push([`grep tool (${engine})`, times]);
}
const base = rows[0][1];
for (const [name, times] of rows) {
  const cells = times.map(
    (ms, i) => `${ms.toFixed(1).padStart(9)} ms${(ms / base[i]).toFixed(2).padStart(7)}x`,
  );
  console.log(`${name.padEnd(26)}${cells.join("")}`);
}
console.log(`(ratios against ${rows[0][0]} for the same pattern)`);
rmSync(dir, { recursive: true, force: true });
