// grep on a generated tree of 20k files: the grep tool (ripgrep engine and JavaScript engine)
// against raw `rg` on the same tree, measured in the same run.
// Run after `npm run build`: node bench/grep.mjs
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grepTool, LocalExecutionEnvironment, ripgrepAvailable } from "../packages/agent/dist/index.js";

const FILES = Number(process.env.FILES ?? 20_000);
const RUNS = Number(process.env.RUNS ?? 3);
const dir = mkdtempSync(join(tmpdir(), "bench-grep-"));
for (let d = 0; d < FILES / 100; d++) {
  const sub = join(dir, `pkg${d}`, "src");
  mkdirSync(sub, { recursive: true });
  for (let f = 0; f < 100; f++) {
    const lines = Array.from({ length: 40 }, (_, i) => `export const v${i} = compute(${d}, ${f}, ${i});`);
    if ((d * 100 + f) % 97 === 0) lines[20] = "// TODO: needleToken here";
    writeFileSync(join(sub, `file${f}.ts`), `${lines.join("\n")}\n`);
  }
}
writeFileSync(join(dir, ".gitignore"), "dist/\n");

async function time(fn) {
  await fn();
  const t = performance.now();
  for (let i = 0; i < RUNS; i++) await fn();
  return (performance.now() - t) / RUNS;
}

const tool = grepTool();
const args = { pattern: "needleToken", max_results: 100 };
const rows = [];
if (ripgrepAvailable()) {
  const raw = await time(async () =>
    spawnSync("rg", ["--no-require-git", "-n", "needleToken", "."], { cwd: dir }),
  );
  rows.push(["raw rg -n", raw]);
  const env = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "ripgrep" });
  rows.push(["grep tool (ripgrep)", await time(() => tool.executor(args, env, { toolCallId: "b" }))]);
}
const js = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "javascript" });
rows.push(["grep tool (javascript)", await time(() => tool.executor(args, js, { toolCallId: "b" }))]);
const base = rows[0][1];
for (const [name, ms] of rows)
  console.log(
    `${name.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms   ${(ms / base).toFixed(2)}x of ${rows[0][0]}`,
  );
console.log(`(${FILES} files, ${RUNS} runs each)`);
rmSync(dir, { recursive: true, force: true });
