// Per-call overhead of the shell tool (environment + env policy + formatting) running `true`,
// against a bare child_process spawn of `/bin/bash -c true` measured in the same run.
// Run after `npm run build`: node bench/shell.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutionEnvironment, shellTool } from "../packages/agent/dist/index.js";

const N = Number(process.env.N ?? 200);
const dir = mkdtempSync(join(tmpdir(), "bench-shell-"));
const env = new LocalExecutionEnvironment({ workingDirectory: dir });
const tool = shellTool();

function bare() {
  return new Promise((resolve) => {
    const c = spawn("/bin/bash", ["-c", "true"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    c.on("close", resolve);
  });
}

async function time(fn) {
  for (let i = 0; i < 10; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  return (performance.now() - t) / N;
}

const base = await time(bare);
const ours = await time(() => tool.executor({ command: "true" }, env, { toolCallId: "b" }));
console.log(
  `shell tool: ${ours.toFixed(2)} ms/call, bare spawn: ${base.toFixed(2)} ms/call, ratio ${(ours / base).toFixed(2)}x (N=${N})`,
);
rmSync(dir, { recursive: true, force: true });
