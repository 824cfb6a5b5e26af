// Start-up of the `attractor` command with two MCP servers configured (the published everything
// and filesystem servers over stdio, from a project .mcp.json) against the same run without them,
// measured in the same run, alternating, against a zero-latency local model:
//   - launch to the first frame of the interactive UI (pseudo-terminal from script(1)): the
//     start-up users feel. The servers start once the frame is up and connect in the background.
//     Target: within 10% of the run without servers.
//   - headless, launch to the first model request with mcpStartupWaitMs 0: nothing waits for the
//     servers.
//   - headless, launch to the first model request with the default wait, the servers' tool lists
//     cached by an earlier run (every run after the first): the request goes out at once with the
//     cached tools, and the servers start once the model begins to answer. Target: within 10%
//     of none.
//   - the same with the cache emptied before each run (the very first run with these servers):
//     the request waits until both servers have answered initialize (their own start-up shows
//     here, bounded by the wait), so the model is offered their tools.
// Run after `npm run build`: node bench/mcp-startup.mjs   (RUNS=11 by default). ATTRACTOR_CLI
// names another build of the command; BASELINE_CLI an earlier build measured in the same run,
// interleaved run by run, and printed beside it.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = Number(process.env.RUNS ?? 11);
const here = dirname(fileURLToPath(import.meta.url));
const CLI =
  process.env.ATTRACTOR_CLI ?? join(here, "..", "packages", "cli", "dist", "bundle", "attractor.js");
const BASELINE = process.env.BASELINE_CLI;
const require = createRequire(join(here, "..", "packages", "agent", "package.json"));
const entry = (pkg) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

const root = mkdtempSync(join(tmpdir(), "attractor-bench-mcp-"));
const plain = join(root, "plain");
const withMcp = join(root, "with-mcp");
for (const dir of [plain, withMcp]) mkdirSync(dir, { recursive: true });
writeFileSync(
  join(withMcp, ".mcp.json"),
  JSON.stringify({
    mcpServers: {
      everything: {
        command: process.execPath,
        args: [entry("@modelcontextprotocol/server-everything"), "stdio"],
      },
      filesystem: {
        command: process.execPath,
        args: [entry("@modelcontextprotocol/server-filesystem"), withMcp],
      },
    },
  }),
);
const homes = {
  wait: join(root, "home-wait"),
  nowait: join(root, "home-nowait"),
  cold: join(root, "home-cold"),
};
for (const home of Object.values(homes)) mkdirSync(home, { recursive: true });
writeFileSync(join(homes.wait, "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
writeFileSync(join(homes.cold, "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
writeFileSync(
  join(homes.nowait, "settings.json"),
  JSON.stringify({ enableAllProjectMcpServers: true, mcpStartupWaitMs: 0 }),
);

// A Chat Completions server that answers "hi" at once and records the tools it was offered.
let onRequest = () => {};
let lastTools = [];
const server = createServer((req, res) => {
  onRequest();
  let body = "";
  req.on("data", (d) => {
    body += d;
  });
  req.on("end", () => {
    try {
      lastTools = (JSON.parse(body).tools ?? []).map((t) => t.function?.name);
    } catch {
      lastTools = [];
    }
    const base = { id: "c", object: "chat.completion.chunk", created: 1, model: "bench-model" };
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`${chunk({ role: "assistant", content: "hi" })}${chunk({}, "stop")}data: [DONE]\n\n`);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const env = (home) => ({
  PATH: process.env.PATH,
  HOME: join(root, "user"),
  ATTRACTOR_HOME: home,
  LANG: "C.UTF-8",
  OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
});

/** Headless run: ms from launch to the first model request. */
function firstRequest(cwd, home, cli = CLI) {
  // The cold home starts every run without the tool lists an earlier run cached.
  if (home === homes.cold) rmSync(join(home, "mcp"), { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first;
    onRequest = () => {
      first ??= performance.now() - t0;
    };
    const child = spawn(process.execPath, [cli, "-p", "hi", "--model", "bench-model"], {
      cwd,
      env: env(home),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => (code === 0 ? resolve(first) : reject(new Error(`exit ${code}: ${stderr}`))));
  });
}

/** Interactive UI in a pseudo-terminal: ms from launch to its first frame. */
function firstFrame(cwd, home, cli = CLI) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      "script",
      // A real terminal's size: in a 0x0 one the banner wraps a character a line.
      [
        "-qfec",
        `stty cols 120 rows 40; exec "${process.execPath}" "${cli}" --model bench-model`,
        "/dev/null",
      ],
      {
        cwd,
        env: { ...env(home), TERM: "xterm-256color" },
        stdio: ["pipe", "pipe", "ignore"],
      },
    );
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no first frame within 10 s: ${out.slice(-300)}`));
    }, 10_000);
    let seen = false;
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (seen || !out.includes("for commands")) return;
      seen = true;
      clearTimeout(timer);
      const ms = performance.now() - t0;
      // /exit: the UI closes its MCP servers and exits, so no run leaves work behind for the next.
      child.stdin.write("/exit");
      setTimeout(() => child.stdin.write("\r"), 200);
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.on("close", () => {
        clearTimeout(killer);
        resolve(ms);
      });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Alternates the variants run by run (without and with servers; with BASELINE_CLI, both again
 * with the earlier build), so load changes hit all alike.
 */
async function compare(label, run, a, b) {
  const variants = [
    [...a, CLI],
    [...b, CLI],
    ...(BASELINE
      ? [
          [...a, BASELINE],
          [...b, BASELINE],
        ]
      : []),
  ];
  for (const v of variants) await run(...v);
  const times = variants.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [k, v] of variants.entries()) times[k].push(await run(...v));
  const [none, two, beforeNone, beforeTwo] = times.map(median);
  return {
    label,
    none,
    two,
    ratio: two / none,
    ...(BASELINE && { before: { none: beforeNone, two: beforeTwo, ratio: beforeTwo / beforeNone } }),
  };
}

const rows = [];
const hasScript = await new Promise((resolve) => {
  const probe = spawn("script", ["--version"], { stdio: "ignore" });
  probe.on("error", () => resolve(false));
  probe.on("close", (code) => resolve(code === 0));
});
if (hasScript)
  rows.push(
    await compare(
      "interactive UI, launch to first frame",
      firstFrame,
      [plain, homes.wait],
      [withMcp, homes.wait],
    ),
  );
rows.push(
  await compare(
    "headless, launch to first request (no wait)",
    firstRequest,
    [plain, homes.nowait],
    [withMcp, homes.nowait],
  ),
);
const mcpTools = () => lastTools.filter((t) => t?.startsWith("mcp__")).length;
rows.push(
  await compare(
    "headless, first request (default wait, cached)",
    firstRequest,
    [plain, homes.wait],
    [withMcp, homes.wait],
  ),
);
const offered = mcpTools();
rows.push(
  await compare(
    "headless, first request (default wait, no cache)",
    firstRequest,
    [plain, homes.cold],
    [withMcp, homes.cold],
  ),
);
const offeredCold = mcpTools();

const cells = (m) =>
  `${m.none.toFixed(0).padStart(5)} ms ${m.two.toFixed(0).padStart(7)} ms   ${m.ratio.toFixed(2)}x`;
console.log(
  `${"".padEnd(50)}  no MCP   2 servers   ratio${BASELINE ? "   | baseline build: no MCP   2 servers   ratio" : ""}`,
);
for (const r of rows)
  console.log(
    `${r.label.padEnd(50)} ${cells(r)}${r.before ? `   | ${"".padEnd(14)}${cells(r.before)}` : ""}`,
  );
const frame = rows.find((r) => r.label.startsWith("interactive"));
console.log(
  frame
    ? `interactive start-up with two MCP servers within 10% of none: ${frame.ratio <= 1.1 ? "met" : "missed"} (${frame.ratio.toFixed(2)}x)`
    : "interactive start-up not measured: script(1) is missing",
);
const cached = rows.find((r) => r.label.includes("cached"));
console.log(
  `headless start-up (cached tool lists) within 10% of none: ${cached.ratio <= 1.1 ? "met" : "missed"} (${cached.ratio.toFixed(2)}x)`,
);
console.log(
  `MCP tools offered in the first request with the default wait: ${offered} cached, ${offeredCold} without a cache (RUNS=${RUNS})`,
);
server.close();
rmSync(root, { recursive: true, force: true });
