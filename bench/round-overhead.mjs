// Per-round overhead of a tool loop, side by side in one run, against a zero-latency scripted
// Anthropic Messages server on 127.0.0.1 that answers 50 requests with a read_file call of one of
// 50 files, then with a final answer:
//   (a) attractor, headless, the bundled command (`attractor -p`);
//   (b) pi (@mariozechner/pi-coding-agent, installed on demand into bench/.peers; skipped with a
//       message when the install fails), `pi -p` with a models.json provider pointing at the server;
//   (c) the floor: bench/support/floor-client.mjs (node:http, SSE parse, readFile, next request),
//       sending byte for byte the requests attractor sent in the run just before it (the server
//       records them and checks each replayed body against them), so the ratio compares what
//       each client spends per round, not the size of what it sends;
//   (d) the same floor client with its own small requests (one tool, no system prompt, the files
//       as read), the earlier floor figure, printed beside it.
// Per-round overhead is measured by the server: from the end of its reply to the arrival of the
// next request, averaged over the 50 rounds (launch and exit are outside it).
// Then, in this process, a Session (real Anthropic adapter over loopback, an echo tool) for 1000
// rounds: the time from a tool's result to the next request's arrival at 50 vs 1000 rounds of
// history, the heap (after gc) at 100 vs 1000 rounds beside the history's size as JSON, and what
// is left once the session is closed and dropped (after a short session has loaded what any first
// session loads); peak RSS of a long (BIG_ROUNDS) headless run against pi's; and, when strace is
// present, epoll/futex calls per round.
// Targets: attractor/pi ≤ 0.5, attractor/floor ≤ 3, build at 1000 ≤ 2× at 50, RSS ≤ 0.6× pi's,
// heap flat (it grows only with the history and goes with the session).
// Run after `npm run build`: node --expose-gc bench/round-overhead.mjs   (RUNS=5, ROUNDS=50,
// BIG_ROUNDS=500, LONG_ROUNDS=1000; PARTS=rounds,wakeups,rss,growth picks parts). DELTA=24 streams
// each reply in deltas of 24 characters, as real providers do; FRESH=1 gives every run a new HOME
// and XDG_CACHE_HOME (nothing cached by an earlier run).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { anthropicReply } from "./support/anthropic-sse.mjs";
import { peerScript } from "./support/peers.mjs";

const RUNS = Number(process.env.RUNS ?? 5);
// Which parts to run (comma-separated): rounds, wakeups, rss, growth.
const PARTS = new Set((process.env.PARTS ?? "rounds,wakeups,rss,growth").split(","));
const ROUNDS = Number(process.env.ROUNDS ?? 50);
const MODEL = "claude-sonnet-4-5";
const here = dirname(fileURLToPath(import.meta.url));
// ATTRACTOR_ROOT measures another build (a checkout with built packages), for before/after figures.
const ROOT = process.env.ATTRACTOR_ROOT ?? join(here, "..");
const CLI = join(ROOT, "packages", "cli", "dist", "bundle", "attractor.js");
const { createAnthropicProfile, LocalExecutionEnvironment, Session } = await import(
  pathToFileURL(join(ROOT, "packages", "agent", "dist", "index.js")).href
);
const { AnthropicAdapter, Client } = await import(
  pathToFileURL(join(ROOT, "packages", "llm", "dist", "index.js")).href
);
const FLOOR = join(here, "support", "floor-client.mjs");
const PI = peerScript("@mariozechner/pi-coding-agent", "0.73.1", "dist/cli.js");

const root = mkdtempSync(join(tmpdir(), "attractor-bench-rounds-"));
const project = join(root, "project");
mkdirSync(join(project, "src"), { recursive: true });
const FILES = Array.from({ length: 50 }, (_, i) => `src/module${i}.js`);
for (const [i, f] of FILES.entries()) {
  const lines = Array.from(
    { length: 40 },
    (_, l) => `export const value${l} = ${i * 100 + l}; // module ${i}`,
  );
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
let cpuMarks = [];
// Attractor's request bodies by run length, from its latest run of that length: what the floor
// client replays. Replayed bodies that differ from them are counted, and fail the run.
const recordings = new Map();
let mismatches = 0;

/** User + system CPU time of a process and its threads so far, in ms (clock ticks of 10 ms). */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const n = arrivals.length;
    arrivals.push(performance.now());
    lastBody = Buffer.concat(chunks).toString();
    plan.onRequest?.(n, lastBody);
    plan.record?.push(lastBody);
    if (plan.expect && plan.expect[n] !== lastBody) mismatches++;
    // The client's CPU time at its first and last tool-round requests: CPU per round, which the
    // machine's load does not inflate the way it inflates wall time.
    if (plan.pid !== undefined && (n === 1 || n === plan.rounds)) cpuMarks.push(processCpuMs(plan.pid));
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
    command: (rounds) => [
      CLI,
      "-p",
      `read the ${rounds} files`,
      "--model",
      MODEL,
      "--max-turns",
      String(rounds + 10),
    ],
    env: {
      ATTRACTOR_HOME: join(root, "attractor-home"),
      ANTHROPIC_API_KEY: "bench",
      ANTHROPIC_BASE_URL: url,
    },
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
  floor: {
    command: (rounds) => {
      const file = join(root, `attractor-requests-${rounds}.json`);
      writeFileSync(file, JSON.stringify(recordings.get(rounds)));
      return [FLOOR, url, project, file];
    },
    expect: (rounds) => recordings.get(rounds),
    env: {},
    tool: "read_file",
    arg: "file_path",
  },
  "floor-own": { command: () => [FLOOR, url, project], env: {}, tool: "read_file", arg: "file_path" },
};

/**
 * FRESH=1: a new HOME and XDG_CACHE_HOME for each run, as a container, CI job or fleet task starts
 * (no compiled code or other cache left by an earlier run); otherwise the runs share one HOME.
 */
function freshHome() {
  if (process.env.FRESH !== "1") return {};
  const home = mkdtempSync(join(root, "fresh-home-"));
  return { HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
}

/** Runs one agent through `rounds` rounds; resolves with its per-round overhead and peak RSS. */
function runAgent(name, rounds, wrap) {
  const agent = AGENTS[name];
  if (agent.expect && !recordings.has(rounds))
    throw new Error(`${name} replays attractor's run: run it first`);
  plan = {
    rounds,
    tool: agent.tool,
    arg: agent.arg,
    record: name === "attractor" ? [] : undefined,
    expect: agent.expect?.(rounds),
  };
  mismatches = 0;
  arrivals = [];
  replies = [];
  cpuMarks = [];
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, ...agent.command(rounds)];
    const [cmd, ...args] = wrap ? wrap(argv) : argv;
    const child = spawn(cmd, args, {
      cwd: project,
      env: { ...baseEnv, ...freshHome(), ...agent.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (!wrap) plan.pid = child.pid;
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
      if (mismatches > 0) {
        reject(new Error(`${name}: ${mismatches} requests differ from attractor's`));
        return;
      }
      if (plan.record) recordings.set(rounds, plan.record);
      let gaps = 0;
      for (let i = 1; i < arrivals.length; i++) gaps += arrivals[i] - replies[i - 1];
      const cpu =
        cpuMarks.length === 2 && rounds > 1 ? (cpuMarks[1] - cpuMarks[0]) / (rounds - 1) : Number.NaN;
      resolve({
        perRound: rounds > 0 ? gaps / rounds : 0,
        peakMb: peak,
        cpu,
        lastRequestBytes: lastBody.length,
      });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const names = Object.keys(AGENTS);
const f = (x, d = 2) => x.toFixed(d);

// ---- (1) per-round overhead, alternating the agents ----
if (PARTS.has("rounds")) {
  const perRound = Object.fromEntries(names.map((n) => [n, []]));
  const cpuPerRound = Object.fromEntries(names.map((n) => [n, []]));
  const requestBytes = {};
  for (const n of names) await runAgent(n, ROUNDS); // warm the file system cache
  for (let r = 0; r < RUNS; r++) {
    for (const n of names) {
      const run = await runAgent(n, ROUNDS);
      perRound[n].push(run.perRound);
      cpuPerRound[n].push(run.cpu);
      requestBytes[n] = run.lastRequestBytes;
    }
  }
  console.log(
    `per-round overhead, ${ROUNDS} read_file rounds over loopback (median of ${RUNS} runs; wall time, and the client's CPU time):`,
  );
  for (const n of names) {
    console.log(
      `  ${n.padEnd(10)} ${f(median(perRound[n])).padStart(7)} ms/round   CPU ${f(median(cpuPerRound[n])).padStart(6)} ms/round   last request ${f(requestBytes[n] / 1024, 0).padStart(4)} KB`,
    );
  }
  const ratios = (a, b) =>
    `${f(median(perRound[a]) / median(perRound[b]))} (CPU ${f(median(cpuPerRound[a]) / median(cpuPerRound[b]))})`;
  if (PI) console.log(`  attractor/pi:    ${ratios("attractor", "pi")}   (target ≤ 0.5)`);
  else console.log("  attractor/pi:    skipped (pi not installed)");
  console.log(
    `  attractor/floor: ${ratios("attractor", "floor")}   (target ≤ 3; the floor sends attractor's requests)`,
  );
  console.log(
    `  attractor/floor-own: ${ratios("attractor", "floor-own")}   (the floor with its own smaller requests, for comparison)`,
  );
}

// ---- (2) wake-ups per round under strace ----
if (PARTS.has("wakeups")) {
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
    // Two run lengths, so start-up and exit cancel out: (calls at 2N rounds - calls at N) / N.
    console.log(
      `wake-ups per round under strace -f ((${2 * ROUNDS} rounds - ${ROUNDS} rounds) / ${ROUNDS}):`,
    );
    for (const n of names) {
      const full = await counts(n, 2 * ROUNDS);
      const none = await counts(n, ROUNDS);
      console.log(
        `  ${n.padEnd(10)} epoll_wait ${f((full.epoll - none.epoll) / ROUNDS, 1).padStart(6)}   futex ${f((full.futex - none.futex) / ROUNDS, 1).padStart(6)}`,
      );
    }
  } else console.log("wake-ups: skipped (strace not installed)");
}

// ---- (3) peak RSS of a long headless run ----
if (PARTS.has("rss")) {
  // The 500 rounds: --max-turns (given by the command above) lifts the default ceiling
  // of 200 tool rounds per input.
  const BIG = Number(process.env.BIG_ROUNDS ?? 500);
  const rss = {};
  for (const n of names) rss[n] = (await runAgent(n, BIG)).peakMb;
  console.log(`peak RSS of a ${BIG}-round headless run:`);
  for (const n of names) console.log(`  ${n.padEnd(10)} ${f(rss[n], 0).padStart(5)} MB`);
  if (PI) console.log(`  attractor/pi: ${f(rss.attractor / rss.pi)}   (target ≤ 0.6)`);
}

// ---- (4) growth with history, in this process ----
if (PARTS.has("growth")) {
  // The model server runs in a child process here, so this process's CPU time is the client's alone.
  const LONG = Number(process.env.LONG_ROUNDS ?? 1000);
  const child = spawn(
    process.execPath,
    [join(here, "support", "scripted-anthropic-server.mjs"), String(LONG), "echo"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const childPort = await new Promise((resolve) =>
    child.stdout.once("data", (d) => resolve(Number(String(d).trim()))),
  );
  const client = new Client({
    providers: {
      anthropic: new AnthropicAdapter({ apiKey: "bench", baseUrl: `http://127.0.0.1:${childPort}`, env: {} }),
    },
  });
  // Per round (medians of 21 rounds around 50 and around the last): the session's own request building (tool result → the client's stream() call, wall
  // time) and the process's CPU time for the whole round (response parsing, dispatch, building,
  // encoding, sending), taken at each tool call.
  let toolDone = 0;
  let calls = 0;
  const sessionBuild = [];
  const roundCpu = [];
  let lastCpu;
  const heap = {};
  const cpuNow = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const echo = {
    definition: {
      name: "echo",
      description: "Echo the text back.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    executor: async (args) => {
      calls++;
      if (calls % 100 === 0 || calls === LONG) {
        globalThis.gc?.();
        heap[calls] = process.memoryUsage().heapUsed;
      }
      const cpu = cpuNow();
      if (lastCpu !== undefined) roundCpu.push(cpu - lastCpu);
      lastCpu = cpu;
      toolDone = performance.now();
      return `${args.text} ${"x".repeat(200)}`;
    },
    readOnly: true,
  };
  const recording = {
    stream(request) {
      if (toolDone > 0) sessionBuild.push(performance.now() - toolDone);
      return client.stream(request);
    },
  };
  const profile = createAnthropicProfile(MODEL);
  profile.toolRegistry.register(echo);
  // A short session first, so that what any first session loads (the SDK, compiled code) is in
  // the baseline the long one is measured from.
  {
    const warm = spawn(
      process.execPath,
      [join(here, "support", "scripted-anthropic-server.mjs"), "50", "echo"],
      {
        stdio: ["pipe", "pipe", "inherit"],
      },
    );
    const warmPort = await new Promise((resolve) =>
      warm.stdout.once("data", (d) => resolve(Number(String(d).trim()))),
    );
    const warmProfile = createAnthropicProfile(MODEL);
    warmProfile.toolRegistry.register({
      ...echo,
      executor: async (args) => `${args.text} ${"x".repeat(200)}`,
    });
    const warmSession = new Session({
      profile: warmProfile,
      environment: new LocalExecutionEnvironment({ workingDirectory: project }),
      client: new Client({
        providers: {
          anthropic: new AnthropicAdapter({
            apiKey: "bench",
            baseUrl: `http://127.0.0.1:${warmPort}`,
            env: {},
          }),
        },
      }),
      config: { maxToolRoundsPerInput: 0, enableLoopDetection: false },
      retry: { maxRetries: 0 },
    });
    await warmSession.submit("go");
    await warmSession.close();
    warm.stdin.end();
  }
  await new Promise((r) => setTimeout(r, 50));
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let session = new Session({
    profile,
    environment: new LocalExecutionEnvironment({ workingDirectory: project }),
    client: recording,
    config: { maxToolRoundsPerInput: 0, enableLoopDetection: false },
    retry: { maxRetries: 0 },
  });
  await session.submit("go");
  const historyBytes = JSON.stringify(session.history).length;
  await session.close();
  child.stdin.end();
  // What the session leaves behind once it is closed and dropped: its history and the caches built
  // from it must go with it.
  session = undefined;
  await new Promise((r) => setTimeout(r, 50));
  globalThis.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  // Medians of 21 rounds around each point: a garbage collection landing in one round is not the
  // cost of building that round's request.
  const around = (xs, at) => median(xs.slice(Math.max(0, at - 10), at + 11));
  const build50 = around(sessionBuild, 50);
  const buildLong = around(sessionBuild, sessionBuild.length - 11);
  const cpu50 = around(roundCpu, 50);
  const cpuLong = around(roundCpu, roundCpu.length - 11);
  console.log(
    `growth with history, in-process Session (Anthropic adapter over loopback, echo tool, ${LONG} rounds):`,
  );
  console.log(
    `  session's request building (tool result → stream call): ${f(build50, 3)} ms at 50 rounds, ${f(buildLong, 3)} ms at ${LONG}: ratio ${f(buildLong / build50)}   (target ≤ 2)`,
  );
  console.log(
    `  process CPU per round (parse, dispatch, build, encode, send): ${f(cpu50)} ms at 50 rounds, ${f(cpuLong)} ms at ${LONG}: ratio ${f(cpuLong / cpu50)}   (target ≤ 2)`,
  );
  if (heap[100] !== undefined && heap[LONG] !== undefined) {
    // The slope of a least-squares line through the heap every 100 rounds from round 100: one
    // sample is at the mercy of what the collector and the compiler left at that moment.
    const points = Object.entries(heap)
      .map(([k, v]) => [Number(k), v])
      .filter(([k]) => k >= 100);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const mx = mean(points.map(([x]) => x));
    const my = mean(points.map(([, y]) => y));
    const grow =
      points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) /
      points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
    console.log(
      `  heap after gc: ${f(heap[100] / 2 ** 20, 1)} MB at 100 rounds, ${f(heap[LONG] / 2 ** 20, 1)} MB at ${LONG}: ${f(grow, 0)} B per round (fitted every 100 rounds), against ${f(historyBytes / LONG, 0)} B per round of history (as JSON): ${f(grow / (historyBytes / LONG))}x${globalThis.gc ? "" : " — run with --expose-gc for exact figures"}`,
    );
    console.log(
      `  heap left once the session is closed and dropped: ${f((heapAfter - heapBefore) / 2 ** 20, 2)} MB against ${f((heap[LONG] - heapBefore) / 2 ** 20, 2)} MB it held at ${LONG} rounds (flat: all of it goes with the session but compiled code)`,
    );
  }
}

server.close();
rmSync(root, { recursive: true, force: true });
