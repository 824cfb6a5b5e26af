// Fleet benchmarks, against a redis-server started here (append-only file on, as workers require).
//
// PART=throughput: TASKS small tasks (write one file, answer) through `attractor fleet` with one
// worker at concurrency 1, 4 and 8, against a zero-latency scripted model; the baseline is the
// same tasks run as sequential `attractor -p` processes, each in a fresh clone (what a script would
// do without the fleet). Prints tasks per minute and the per-task overhead of the fleet.
//
// PART=status: FINISHED tasks (2000) run to the end by a real worker (clone, patch, result store)
// whose agent is a stub printing attractor's JSON result and writing a 22 KiB transcript, every job
// kept in Redis; then `attractor fleet status` timed (the process, and the library call) against
// the previous status's way (load every finished job), and Redis's memory before and after.
//
// Needs redis-server (Debian package). Run after `npm run build`: node bench/fleet.mjs
// (PART=throughput|status, both by default; TASKS=200, FINISHED=2000, KEEP=FINISHED, LISTPACK=1024)
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicReply } from "./support/anthropic-sse.mjs";

const TASKS = Number(process.env.TASKS ?? 200);
const FINISHED = Number(process.env.FINISHED ?? 2000);
const PART = process.env.PART ?? "both";
// Finished jobs kept in Redis (submit --keep-finished): all of them by default, the worst case.
const KEEP = Number(process.env.KEEP ?? FINISHED);
const CLI = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "packages",
  "cli",
  "dist",
  "bundle",
  "attractor.js",
);
const root = mkdtempSync(join(tmpdir(), "attractor-bench-fleet-"));

try {
  execFileSync("redis-server", ["--version"], { stdio: "ignore" });
} catch {
  console.log("redis-server is not installed (Debian package redis-server): skipped");
  process.exit(0);
}

// ---- a zero-latency Anthropic model answering each task from its id ----
let n = 0;
const reply = (id, done) =>
  anthropicReply({
    n: ++n,
    model: "claude-sonnet-4-5",
    ...(done
      ? { text: `done ${id}` }
      : { tool: "write_file", args: { file_path: `out/${id}.txt`, content: `${id}\n` } }),
    inputTokens: 100,
    outputTokens: 10,
  });
const model = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => {
    body += d;
  });
  req.on("end", () => {
    const json = JSON.parse(body);
    const first = json.messages.find((m) => m.role === "user");
    const text =
      typeof first.content === "string" ? first.content : first.content.map((b) => b.text ?? "").join("");
    const id = /task:(\S+)/.exec(text)?.[1] ?? "x";
    const done = json.messages.some(
      (m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
    );
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(reply(id, done));
  });
});
await new Promise((r) => model.listen(0, "127.0.0.1", r));
const env = {
  PATH: process.env.PATH,
  HOME: join(root, "home"),
  ATTRACTOR_HOME: join(root, "attractor"),
  ANTHROPIC_API_KEY: "bench",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.address().port}`,
};

async function throughput() {
  // ---- baseline: sequential attractor -p, each in a fresh clone ----
  let started = performance.now();
  for (let i = 0; i < TASKS; i++) {
    const dir = join(root, "seq", String(i));
    execFileSync("git", ["clone", "-q", repo, dir]);
    await run([
      "-p",
      `task:seq-${i} write the file`,
      "--permission-mode",
      "yolo",
      "--output-format",
      "json",
      "--cwd",
      dir,
    ]);
  }
  const sequentialMs = performance.now() - started;
  const perMinute = (ms) => (TASKS / (ms / 60_000)).toFixed(1);
  console.log(`tasks: ${TASKS} (write one file, answer) against a zero-latency model`);
  console.log(
    `sequential attractor -p (fresh clone each): ${(sequentialMs / 1000).toFixed(1)} s, ${perMinute(sequentialMs)} tasks/min, ${(sequentialMs / TASKS).toFixed(0)} ms/task`,
  );

  for (const concurrency of [1, 4, 8]) {
    const queue = `bench-c${concurrency}`;
    const file = join(root, `${queue}.jsonl`);
    writeFileSync(file, taskLines(queue));
    started = performance.now();
    await run(["fleet", "submit", file, "--redis", redisUrl, "--queue", queue]);
    await run([
      "fleet",
      "worker",
      "--concurrency",
      String(concurrency),
      "--exit-when-idle",
      "--work-dir",
      join(root, "work"),
      "--redis",
      redisUrl,
      "--queue",
      queue,
    ]);
    const ms = performance.now() - started;
    const overhead =
      concurrency === 1
        ? ` (fleet overhead per task over the baseline: ${((ms - sequentialMs) / TASKS).toFixed(0)} ms)`
        : "";
    console.log(
      `fleet, 1 worker, concurrency ${concurrency}: ${(ms / 1000).toFixed(1)} s, ${perMinute(ms)} tasks/min, ${(sequentialMs / ms).toFixed(2)}x the baseline's rate${overhead}`,
    );
  }
}

async function statusAtScale() {
  const { fleetStatus, runWorker, submitTasks } = await import("../packages/fleet/dist/index.js");
  const { Queue } = await import("bullmq");
  const { Redis } = await import("ioredis");
  const client = new Redis(redisUrl);
  const memory = async () => Number(/used_memory:(\d+)/.exec(await client.info("memory"))?.[1]);
  const queue = "bench-status";
  const store = join(root, "store");
  const benchEnv = { ...env, ATTRACTOR_FLEET_STORE: store };
  // The stub agent: what `attractor -p --output-format json` prints, a file changed, a transcript.
  const stub = join(root, "stub-agent.sh");
  const line = JSON.stringify({ type: "message", text: "x".repeat(200) });
  writeFileSync(
    stub,
    [
      "#!/bin/sh",
      'echo "$2" > changed.txt',
      'mkdir -p "$ATTRACTOR_HOME/sessions/bench"',
      `for i in $(seq 1 100); do echo '${line}'; done > "$ATTRACTOR_HOME/sessions/bench/s1.jsonl"`,
      `echo '${JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "done", session_id: "s1", num_turns: 6, total_cost_usd: 0.01, usage: { input_tokens: 1000, output_tokens: 100 } })}'`,
    ].join("\n"),
  );
  const before = await memory();
  const tasks = Array.from({ length: FINISHED }, (_, i) => ({
    id: `s-${i}`,
    repo,
    prompt: `task:s-${i} change a file`,
  }));
  let started = performance.now();
  await submitTasks(tasks, { redis: redisUrl, queue, env: benchEnv, keepFinished: KEEP });
  await runWorker({
    redis: redisUrl,
    queue,
    env: benchEnv,
    command: ["/bin/sh", stub],
    concurrency: 4,
    exitWhenIdle: true,
    workRoot: join(root, "work-status"),
  });
  console.log(
    `${FINISHED} tasks run by one worker (stub agent, concurrency 4): ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const after = await memory();

  const cliTimes = [];
  let out = "";
  for (let i = 0; i < 5; i++) {
    started = performance.now();
    out = execFileSync(process.execPath, [CLI, "fleet", "status", "--redis", redisUrl, "--queue", queue], {
      env: benchEnv,
      encoding: "utf8",
    });
    cliTimes.push(performance.now() - started);
  }
  // The floor of any command: node starting the bundle (`attractor --version`).
  const startTimes = [];
  for (let i = 0; i < 5; i++) {
    started = performance.now();
    execFileSync(process.execPath, [CLI, "--version"], { env: benchEnv, encoding: "utf8" });
    startTimes.push(performance.now() - started);
  }
  const libTimes = [];
  for (let i = 0; i < 5; i++) {
    started = performance.now();
    await fleetStatus({ redis: redisUrl, queue, env: benchEnv });
    libTimes.push(performance.now() - started);
  }
  // The previous status: every finished job loaded (with its result) to compute the rate.
  const oldTimes = [];
  const q = new Queue(queue, { connection: { url: redisUrl } });
  for (let i = 0; i < 3; i++) {
    started = performance.now();
    await q.getJobCounts("completed", "failed", "active", "waiting", "delayed", "prioritized");
    await q.getJobs(["completed"], 0, -1);
    await q.getJobs(["failed"], 0, -1);
    oldTimes.push(performance.now() - started);
  }
  await q.close();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(out.trim().split("\n")[0]);
  console.log(
    `fleet status, ${FINISHED} finished: ${(median(cliTimes) / 1000).toFixed(3)} s per command (median of 5; target 0.3 s), of which ${(median(startTimes) / 1000).toFixed(3)} s is the process start (attractor --version); ${median(libTimes).toFixed(1)} ms per library call`,
  );
  console.log(
    `previous status's reads (every finished job loaded): ${median(oldTimes).toFixed(1)} ms; the library call takes ${(median(libTimes) / median(oldTimes)).toFixed(2)}x that`,
  );
  const mib = (b) => (b / 1024 / 1024).toFixed(2);
  console.log(
    `Redis used_memory: ${mib(before)} MiB empty, ${mib(after)} MiB after ${FINISHED} finished tasks, ${Math.min(KEEP, FINISHED)} of their jobs kept (+${mib(after - before)} MiB; target 5 MiB); transcripts and patches in the store instead`,
  );
  client.disconnect();
}

// ---- redis and a repository ----
const port = await new Promise((resolve) => {
  const s = createNetServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const redis = spawn(
  "redis-server",
  [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    root,
    "--save",
    "",
    "--appendonly",
    "yes",
    // As deploy/kubernetes/redis.yaml: job hashes stay compact up to 1 KiB values (LISTPACK=64 for
    // Redis's default).
    "--hash-max-listpack-value",
    process.env.LISTPACK ?? "1024",
  ],
  { stdio: "ignore" },
);
await new Promise((r) => setTimeout(r, 300));
const redisUrl = `redis://127.0.0.1:${port}`;
const repo = join(root, "repo");
mkdirSync(repo);
execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
writeFileSync(join(repo, "README.md"), "bench\n");
execFileSync("git", ["add", "-A"], { cwd: repo });
execFileSync("git", ["-c", "user.email=b@b.invalid", "-c", "user.name=b", "commit", "-q", "-m", "init"], {
  cwd: repo,
});

const run = (args, cwd = root) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => {
      if (err.length < 4000) err += d;
    });
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`attractor ${args.join(" ")} exited ${code}: ${err}`)),
    );
  });

const taskLines = (prefix) =>
  Array.from({ length: TASKS }, (_, i) =>
    JSON.stringify({
      id: `${prefix}-${i}`,
      repo,
      prompt: `task:${prefix}-${i} write the file`,
      provider: "anthropic",
    }),
  ).join("\n");

if (PART === "both" || PART === "throughput") await throughput();
if (PART === "both" || PART === "status") await statusAtScale();

redis.kill("SIGTERM");
await new Promise((r) => redis.once("exit", r));
model.close();
rmSync(root, { recursive: true, force: true });
