// Fleet throughput: TASKS small tasks (write one file, answer) through `attractor fleet` on a
// redis-server started here, with one worker at concurrency 1, 4 and 8, against a zero-latency
// scripted model; the baseline is the same tasks run as sequential `attractor -p` processes, each
// in a fresh clone (what a script would do without the fleet). Prints tasks per minute and the
// per-task overhead of the fleet (queue + workspace + session start) over the baseline.
// Needs redis-server (Debian package). Run after `npm run build`: node bench/fleet.mjs   (TASKS=200)
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicReply } from "./support/anthropic-sse.mjs";

const TASKS = Number(process.env.TASKS ?? 200);
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

// ---- redis and a repository ----
const port = await new Promise((resolve) => {
  const s = createNetServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const redis = spawn(
  "redis-server",
  ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
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

redis.kill("SIGTERM");
model.close();
rmSync(root, { recursive: true, force: true });
