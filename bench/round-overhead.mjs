// Per-round overhead of a tool loop, side by side in one run, against a zero-latency scripted
// Anthropic Messages server on 127.0.0.1 that answers 50 requests with a read_file call of one of
// 50 files, then with a final answer:
//   (a) attractor, headless, the bundled command (`attractor -p`);
//   (b) pi (@mariozechner/pi-coding-agent, installed on demand into bench/.peers; skipped with a
//       message when the install fails), `pi -p` with a models.json provider pointing at the server;
//   (c) the floor: bench/support/floor-client.mjs (node:http, SSE parse, readFile, next request).
// Per-round overhead is measured by the server: from the end of its reply to the arrival of the
// next request, averaged over the 50 rounds (launch and exit are outside it).
// Then, in this process, a Session (real Anthropic adapter over loopback, an echo tool) for 1000
// rounds: the time from a tool's result to the next request's arrival at 50 vs 1000 rounds of
// history, and the heap (after gc) at 100 vs 1000 rounds; peak RSS of a 500-round headless run
// against pi's; and, when strace is present, epoll/futex calls per round.
// Targets: attractor/pi ≤ 0.5, attractor/floor ≤ 3, build at 1000 ≤ 2× at 50, RSS ≤ 0.6× pi's,
// heap flat (growth no more than the history's own size).
// Run after `npm run build`: node --expose-gc bench/round-overhead.mjs   (RUNS=5, ROUNDS=50)
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAnthropicProfile, LocalExecutionEnvironment, Session } from "../packages/agent/dist/index.js";
import { AnthropicAdapter, Client } from "../packages/llm/dist/index.js";
import { anthropicReply } from "./support/anthropic-sse.mjs";
import { peerScript } from "./support/peers.mjs";

const RUNS = Number(process.env.RUNS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 50);
const MODEL = "claude-sonnet-4-5";
const here = dirname(fileURLToPath(import.meta.url));
const CLI = process.env.ATTRACTOR_CLI ?? join(here, "..", "packages", "cli", "dist", "bundle", "attractor.js");
const FLOOR = join(here, "support", "floor-client.mjs");
const PI = peerScript("@mariozechner/pi-coding-agent", "0.73.1", "dist/cli.js");

const root = mkdtempSync(join(tmpdir(), "attractor-bench-rounds-"));
const project = join(root, "project");
mkdirSync(join(project, "src"), { recursive: true });
const FILES = Array.from({ length: 50 }, (_, i) => `src/module${i}.js`);
for (const [i, f] of FILES.entries()) {
  const lines = Array.from({ length: 40 }, (_, l) => `export const value${l} = ${i * 100 + l}; // module ${i}`);
  writeFileSync(join(project, f), `// marker-${i}\n${lines.join("\n")}\n`);
}
mkdirSync(join(root, "attractor-home"), { recursive: true });
writeFileSync(join(root, "attractor-home", "settings.json"), JSON.stringify({ lsp: { enabled: false } }));
const piDir = join(root, "pi-agent");

// ---- the scripted model ----
// plan: how many rounds, the tool's name and its path argument; each request is timed on arrival
// (its body complete) and each reply on its end.
let plan = { rounds: 0, tool: "read_file", arg: "file_path", onRequest: undefined };
let arrivals = [];
let replies = [];
let lastBody = "";
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const n = arrivals.length;
    arrivals.push(performance.now());
    lastBody = Buffer.concat(chunks).toString();
    plan.onRequest?.(n, lastBody);
    const call = n < plan.rounds;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      anthropicReply({
        n,
        model: MODEL,
        tool: plan.tool,
        args: call && { [plan.arg]: plan.absolute ? join(project, FILES[n % 50]) : FILES[n % 50] },
        text: "All files read.",
        inputTokens: 100,
        outputTokens: 10,
      }),
    );
    replies.push(performance.now());
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}`;

writeFileSync(
  join(mkdirSync(piDir, { recursive: true }) ?? piDir, "models.json"),
  JSON.stringify({
    providers: {
      bench: {
        baseUrl: url,
        api: "anthropic-messages",
        apiKey: "bench",
        models: [{ id: MODEL, contextWindow: 200000, maxTokens: 8192 }],
      },
    },
  }),
);

const baseEnv = { PATH: process.env.PATH, HOME: join(root, "home"), LANG: "C.UTF-8" };
const AGENTS = {
  attractor: {
    command: (rounds) => [CLI, "-p", `read the ${rounds} files`, "--model", MODEL],
    env: { ATTRACTOR_HOME: join(root, "attractor-home"), ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: url },
    tool: "read_file",
    arg: "file_path",
  },
  ...(PI && {
    pi: {
      command: (rounds) => [PI, "-p", `read the ${rounds} files`, "--provider", "bench", "--model", MODEL],
      env: { PI_CODING_AGENT_DIR: piDir, PI_OFFLINE: "1", PI_TELEMETRY: "0" },
      tool: "read",
      arg: "path",
    },
  }),
  floor: { command: () => [FLOOR, url, project], env: {}, tool: "read_file", arg: "file_path" },
};

/** Runs one agent through `rounds` rounds; resolves with its per-round overhead and peak RSS. */
function runAgent(name, rounds, wrap) {
  const agent = AGENTS[name];
  plan = { rounds, tool: agent.tool, arg: agent.arg };
  arrivals = [];
  replies = [];
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, ...agent.command(rounds)];
    const [cmd, ...args] = wrap ? wrap(argv) : argv;
    const child = spawn(cmd, args, {
      cwd: project,
      env: { ...baseEnv, ...agent.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    // VmHWM is the process's peak resident set so far; the last reading before exit is its peak.
    let peak = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch {}
    }, 20);
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(poll);
      const last = `marker-${(rounds - 1) % 50}`;
      if (code !== 0 || arrivals.length !== rounds + 1 || (rounds > 0 && !lastBody.includes(last))) {
        reject(
          new Error(
            `${name}: exit ${code}, ${arrivals.length} requests for ${rounds} rounds: ${output.slice(-600)}`,
          ),
        );
        return;
      }
      let gaps = 0;
      for (let i = 1; i < arrivals.length; i++) gaps += arrivals[i] - replies[i - 1];
      resolve({ perRound: rounds > 0 ? gaps / rounds : 0, peakMb: peak });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const names = Object.keys(AGENTS);
const f = (x, d = 2) => x.toFixed(d);

// ---- (1) per-round overhead, alternating the agents ----
const perRound = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) await runAgent(n, ROUNDS); // warm the file system cache
for (let r = 0; r < RUNS; r++) for (const n of names) perRound[n].push((await runAgent(n, ROUNDS)).perRound);
console.log(`per-round overhead, ${ROUNDS} read_file rounds over loopback (median of ${RUNS} runs):`);
for (const n of names) console.log(`  ${n.padEnd(10)} ${f(median(perRound[n])).padStart(7)} ms/round`);
const ours = median(perRound.attractor);
if (PI) console.log(`  attractor/pi:    ${f(ours / median(perRound.pi))}   (target ≤ 0.5)`);
else console.log("  attractor/pi:    skipped (pi not installed)");
console.log(`  attractor/floor: ${f(ours / median(perRound.floor))}   (target ≤ 3)`);

// ---- (2) wake-ups per round under strace ----
const hasStrace = spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;
if (hasStrace) {
  const out = join(root, "strace.txt");
  const counts = async (name, rounds) => {
    await runAgent(name, rounds, (argv) => [
      "strace",
      "-f",
      "-c",
      "-o",
      out,
      "-e",
      "trace=epoll_wait,epoll_pwait,epoll_pwait2,futex",
      ...argv,
    ]);
    const text = readFileSync(out, "utf8");
    const calls = (re) =>
      text
        .split("\n")
        .filter((l) => re.test(l))
        .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[3]), 0);
    return { epoll: calls(/\bepoll_p?wait2?$/), futex: calls(/\bfutex$/) };
  };
  console.log(`wake-ups per round under strace -f (${ROUNDS} rounds minus a 0-round run, per round):`);
  for (const n of names) {
    const full = await counts(n, ROUNDS);
    const none = await counts(n, 0);
    console.log(
      `  ${n.padEnd(10)} epoll_wait ${f((full.epoll - none.epoll) / ROUNDS, 1).padStart(6)}   futex ${f((full.futex - none.futex) / ROUNDS, 1).padStart(6)}`,
    );
  }
} else console.log("wake-ups: skipped (strace not installed)");

// ---- (3) peak RSS of a 500-round headless run ----
const BIG = Number(process.env.BIG_ROUNDS ?? 500);
const rss = {};
for (const n of names) rss[n] = (await runAgent(n, BIG)).peakMb;
console.log(`peak RSS of a ${BIG}-round headless run:`);
for (const n of names) console.log(`  ${n.padEnd(10)} ${f(rss[n], 0).padStart(5)} MB`);
if (PI) console.log(`  attractor/pi: ${f(rss.attractor / rss.pi)}   (target ≤ 0.6)`);

// ---- (4) growth with history, in this process ----
const LONG = Number(process.env.LONG_ROUNDS ?? 1000);
const client = new Client({
  providers: { anthropic: new AnthropicAdapter({ apiKey: "bench", baseUrl: url, env: {} }) },
});
let toolDone = 0;
const echo = {
  definition: {
    name: "echo",
    description: "Echo the text back.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  executor: async (args) => {
    toolDone = performance.now();
    return `${args.text} ${"x".repeat(200)}`;
  },
  readOnly: true,
};
const builds = new Array(LONG + 1).fill(0);
const heap = {};
const bodies = {};
plan = {
  rounds: LONG,
  tool: "echo",
  arg: "text",
  onRequest: (n, body) => {
    if (n > 0) builds[n] = performance.now() - toolDone;
    if (n === 100 || n === LONG) {
      globalThis.gc?.();
      heap[n] = process.memoryUsage().heapUsed;
      bodies[n] = body.length;
    }
  },
};
arrivals = [];
replies = [];
const profile = createAnthropicProfile(MODEL);
profile.toolRegistry.register(echo);
const session = new Session({
  profile,
  environment: new LocalExecutionEnvironment({ workingDirectory: project }),
  client,
  config: { maxToolRoundsPerInput: 0, enableLoopDetection: false },
  retry: { maxRetries: 0 },
});
await session.submit("go");
await session.close();
const mean = (from, to) => builds.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
const at50 = mean(41, 61);
const atLong = mean(LONG - 19, LONG + 1);
console.log(`tool result → next request arrives (request building + send), in-process Session:`);
console.log(`  at 50 rounds of history:   ${f(at50)} ms`);
console.log(`  at ${LONG} rounds of history: ${f(atLong)} ms   ratio ${f(atLong / at50)}   (target ≤ 2)`);
if (heap[100] !== undefined && heap[LONG] !== undefined) {
  const grow = (heap[LONG] - heap[100]) / (LONG - 100);
  const hist = (bodies[LONG] - bodies[100]) / (LONG - 100);
  console.log(
    `Session heap after gc: ${f(heap[100] / 2 ** 20, 1)} MB at 100 rounds, ${f(heap[LONG] / 2 ** 20, 1)} MB at ${LONG}: ${f(grow, 0)} B/round against ${f(hist, 0)} B/round of request JSON growth (ratio ${f(grow / hist)})${globalThis.gc ? "" : " — run with --expose-gc for exact figures"}`,
  );
}
server.close();
rmSync(root, { recursive: true, force: true });
