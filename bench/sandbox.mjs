// Per-command overhead of the bubblewrap sandbox: SandboxedExecutionEnvironment running `true`
// against LocalExecutionEnvironment running `true`, and a raw bwrap spawn with the sandbox's own
// arguments against a bare spawn of `/bin/bash -c true`, all measured in the same run. Also the
// one-off cost of the availability probe. N commands each (default 200).
// Run after `npm run build`: node bench/sandbox.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bwrapArguments,
  createSandboxPolicy,
  LocalExecutionEnvironment,
  probeBubblewrap,
  SandboxedExecutionEnvironment,
} from "../packages/agent/dist/index.js";

const N = Number(process.env.N ?? 200);
const probeStarted = performance.now();
const status = await probeBubblewrap();
const probeMs = performance.now() - probeStarted;
if (!status.available) {
  console.log(`sandbox: skipped, bubblewrap cannot run here: ${status.reason}`);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "bench-sandbox-"));
const tmp = mkdtempSync(join(tmpdir(), "bench-sandbox-tmp-"));
const local = new LocalExecutionEnvironment({ workingDirectory: dir });
const sandboxed = new SandboxedExecutionEnvironment({ workingDirectory: dir });
const args = bwrapArguments(createSandboxPolicy({ projectDirs: [dir] }), {
  cwd: dir,
  tmpDir: tmp,
  disableUserns: status.disableUserns,
});

function spawned(file, argv) {
  return () =>
    new Promise((resolve) => {
      const c = spawn(file, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      c.stdout.resume();
      c.stderr.resume();
      c.on("close", resolve);
    });
}

// The variants take turns, one command each, so that load changing during the run (other
// processes on the machine) weighs on all of them alike.
async function timeInterleaved(variants) {
  const totals = variants.map(() => 0);
  for (let round = -10; round < N; round++) {
    for (const [i, fn] of variants.entries()) {
      const t = performance.now();
      await fn();
      if (round >= 0) totals[i] += performance.now() - t;
    }
  }
  return totals.map((total) => total / N);
}

// The same bwrap without the placeholders that hold the place of missing code-running files.
const noPlaceholders = bwrapArguments(
  { ...createSandboxPolicy({ projectDirs: [dir] }), placeholderPaths: [] },
  { cwd: dir, tmpDir: tmp, disableUserns: status.disableUserns },
);
const [bare, rawBwrap, plain, inSandbox, rawNoPlaceholders] = await timeInterleaved([
  spawned("/bin/bash", ["-c", "true"]),
  spawned(status.path, [...args, "--", "/bin/bash", "-c", "true"]),
  () => local.execCommand("true"),
  () => sandboxed.execCommand("true"),
  spawned(status.path, [...noPlaceholders, "--", "/bin/bash", "-c", "true"]),
]);
const check = await sandboxed.execCommand("touch /etc/bench-sandbox-probe");
if (check.exitCode === 0) throw new Error("the benchmark's sandbox let a write to /etc through");

console.log(`availability probe (once per process): ${probeMs.toFixed(1)} ms`);
console.log(
  `raw spawn: bwrap + bash ${rawBwrap.toFixed(2)} ms/command, bare bash ${bare.toFixed(2)} ms/command, ` +
    `ratio ${(rawBwrap / bare).toFixed(2)}x, overhead ${(rawBwrap - bare).toFixed(2)} ms (N=${N})`,
);
console.log(
  `placeholders (${createSandboxPolicy({ projectDirs: [dir] }).placeholderPaths?.length ?? 0} mounts): bwrap + bash ${rawBwrap.toFixed(2)} ms/command, ` +
    `without them ${rawNoPlaceholders.toFixed(2)} ms/command, ratio ${(rawBwrap / rawNoPlaceholders).toFixed(2)}x (N=${N})`,
);
console.log(
  `environment: sandboxed ${inSandbox.toFixed(2)} ms/command, local ${plain.toFixed(2)} ms/command, ` +
    `ratio ${(inSandbox / plain).toFixed(2)}x, overhead ${(inSandbox - plain).toFixed(2)} ms (N=${N})`,
);
await Promise.all([local.cleanup(), sandboxed.cleanup()]);
rmSync(dir, { recursive: true, force: true });
rmSync(tmp, { recursive: true, force: true });
