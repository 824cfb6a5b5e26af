// Per-call cost of PreToolUse command hooks as the CLI runs them (matching, JSON on stdin, a
// process per hook, reading the verdict): one hook, and three matching hooks run in parallel,
// against a bare spawn of `/bin/sh -c 'cat >/dev/null'` fed the same JSON, measured in the same run.
// Run after `npm run build`: node bench/hooks.mjs (N calls, default 200)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCommandHooks } from "../packages/runtime/dist/hooks/index.js";

const N = Number(process.env.N ?? 200);
const dir = mkdtempSync(join(tmpdir(), "bench-hooks-"));
const call = { callId: "c1", toolName: "shell", arguments: { command: "npm test" } };
const payload = JSON.stringify({
  session_id: "s",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: call.arguments,
});

const hooksWith = (commands) =>
  createCommandHooks(
    [
      {
        file: "settings.json",
        scope: "user",
        hooks: {
          PreToolUse: commands.map((command) => ({ matcher: "Bash", hooks: [{ type: "command", command }] })),
        },
      },
    ],
    {
      projectDir: dir,
      env: { PATH: process.env.PATH },
      sessionId: () => "s",
      transcriptPath: () => undefined,
      permissionMode: () => "normal",
      notify: () => {},
    },
  );

function bare() {
  return new Promise((resolve) => {
    const c = spawn("/bin/sh", ["-c", "cat >/dev/null"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    c.on("close", resolve);
    c.stdin.end(payload);
  });
}

async function time(fn) {
  for (let i = 0; i < 10; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  return (performance.now() - t) / N;
}

const one = hooksWith(["cat >/dev/null"]);
const three = hooksWith(["cat >/dev/null", "cat >/dev/null; true", "cat >/dev/null; :"]);
const none = hooksWith([]);
const base = await time(bare);
const single = await time(() => one.preToolUse(call));
const parallel = await time(() => three.preToolUse(call));
const empty = await time(() => none.preToolUse(call));
console.log(`bare spawn: ${base.toFixed(2)} ms/call (N=${N})`);
console.log(`1 PreToolUse hook: ${single.toFixed(2)} ms/call, ratio ${(single / base).toFixed(2)}x`);
console.log(`3 hooks in parallel: ${parallel.toFixed(2)} ms/call, ratio ${(parallel / base).toFixed(2)}x`);
console.log(`no hook configured: ${(empty * 1000).toFixed(1)} µs/call`);
rmSync(dir, { recursive: true, force: true });
