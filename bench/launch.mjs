// Launch to first model request of the bundled `attractor` in headless mode (`-p`), in a git
// project (the prompt's git snapshot is on the start path), against a zero-latency scripted model
// server on 127.0.0.1, per provider wire protocol (each loads its own SDK). Target: at most 150 ms.
// Baselines measured in the same run: `node -e ''` to exit, and a bare node script that sends one
// request to the same server (the floor of any Node client).
// BASELINE_CLI=<path to another build's dist/bundle/attractor.js> measures that build too, in the
// same run (for example the main branch's, to see what a change gained).
// Run after `npm run build`: node bench/launch.mjs   (RUNS=15 by default)
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicReply } from "./support/anthropic-sse.mjs";
import { responsesReply } from "./support/responses-sse.mjs";

const RUNS = Number(process.env.RUNS ?? 15);
const TARGET_MS = 150;
const CLI =
  process.env.ATTRACTOR_CLI ??
  join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "dist", "bundle", "attractor.js");

const root = mkdtempSync(join(tmpdir(), "attractor-bench-launch-"));
const project = join(root, "project");
mkdirSync(join(project, "src"), { recursive: true });
for (let i = 0; i < 20; i++) writeFileSync(join(project, "src", `m${i}.js`), `export const v${i} = ${i};\n`);
writeFileSync(join(project, "README.md"), "# project\n");
const git = (...args) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], {
    cwd: project,
    stdio: "ignore",
  });
git("init", "--quiet");
git("add", "-A");
git("commit", "--quiet", "-m", "initial");
// Language servers off: they are not on the way to the first request.
mkdirSync(join(root, "attractor-home"), { recursive: true });
writeFileSync(join(root, "attractor-home", "settings.json"), JSON.stringify({ lsp: { enabled: false } }));

let onRequest = () => {};
const server = createServer((req, res) => {
  onRequest();
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (req.url.includes("/messages")) {
      res.end(
        anthropicReply({ n: 0, model: "claude-sonnet-4-5", text: "hi", inputTokens: 10, outputTokens: 1 }),
      );
    } else res.end(responsesReply({ n: 0, text: "hi" }));
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}`;

const baseEnv = {
  PATH: process.env.PATH,
  HOME: join(root, "home"),
  ATTRACTOR_HOME: join(root, "attractor-home"),
  LANG: "C.UTF-8",
};
const PROVIDERS = {
  openai: { OPENAI_API_KEY: "bench", OPENAI_BASE_URL: `${url}/v1` },
  anthropic: { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: url },
};

/** Spawns a process; resolves with ms to the server's first request (if any) and to exit. */
function timed(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first;
    onRequest = () => {
      first ??= performance.now() - t0;
    };
    const child = spawn(process.execPath, args, { cwd: project, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`));
      else resolve({ first, total: performance.now() - t0 });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function measure(run, pick) {
  await run(); // warms the file system cache
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(pick(await run()));
  return { ms: median(times), min: Math.min(...times) };
}

const bare = `fetch(${JSON.stringify(`${url}/v1/responses`)}, { method: "POST", body: "{}" }).then((r) => r.text())`;
const rows = [
  [
    "node -e ''  (process start to exit)",
    await measure(
      () => timed(["-e", ""], baseEnv),
      (r) => r.total,
    ),
  ],
  [
    "bare node fetch, start to request",
    await measure(
      () => timed(["-e", bare], baseEnv),
      (r) => r.first,
    ),
  ],
];
// Each provider's runs alternate with the BASELINE_CLI build's, so both see the same machine load.
const launches = [];
const baseline = process.env.BASELINE_CLI;
for (const [provider, env] of Object.entries(PROVIDERS)) {
  const builds = baseline ? [CLI, baseline] : [CLI];
  const first = (cli) => timed([cli, "-p", "hi"], { ...baseEnv, ...env }).then((r) => r.first);
  for (const cli of builds) await first(cli); // warms the file system cache
  const times = builds.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [b, cli] of builds.entries()) times[b].push(await first(cli));
  const [ours, theirs] = times.map((t) => ({ ms: median(t), min: Math.min(...t) }));
  rows.push([`attractor -p, launch to first request (${provider})`, ours]);
  if (theirs) rows.push(["  the same, BASELINE_CLI build", theirs]);
  launches.push(ours.ms);
}
const floor = rows[1][1].ms;
for (const [label, m] of rows) {
  console.log(
    `${label.padEnd(52)} ${m.ms.toFixed(0).padStart(4)} ms median  (min ${m.min.toFixed(0)} ms)  ${(m.ms / floor).toFixed(2)}x bare fetch`,
  );
}
const worst = Math.max(...launches);
console.log(
  `launch to first request: ${worst.toFixed(0)} ms (slowest provider) against the ${TARGET_MS} ms target: ${worst <= TARGET_MS ? "met" : "NOT met"} (RUNS=${RUNS})`,
);
server.close();
rmSync(root, { recursive: true, force: true });
