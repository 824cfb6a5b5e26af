// A whole-process headless fix-bug task, attractor against codex measured the same way: each
// agent is started as a process in a small git project with a failing test, and talks to a
// zero-latency scripted model on 127.0.0.1 speaking the OpenAI Responses API (SSE), which both
// use. Six model turns: read the buggy file, search for its callers, patch it, run the test,
// write a note, answer. Each agent gets the same turns in its own tools (attractor: read_file,
// grep, apply_patch, shell, write_file; codex: exec_command running cat, grep, apply_patch, node,
// apply_patch). Timed from process start to exit; runs alternate; every run is checked to have
// fixed the bug. Both run commands with the same sandbox mode, SANDBOX (danger-full-access, that
// is none, by default; workspace-write puts each under its own sandbox). Target: attractor at most
// 0.5x codex.
// codex (npm package @openai/codex, whose platform binary is an npm optional dependency) is
// installed on demand into bench/.peers/codex (git-ignored); the comparison is skipped, with the
// reason, when that fails. BASELINE_CLI=<another build's dist/bundle/attractor.js> runs that build
// too, in the same rounds. FRESH=1 adds runs of each agent with a new HOME, XDG_CACHE_HOME and
// agent home (ATTRACTOR_HOME, CODEX_HOME) each, as in a container, CI job or fleet task: nothing
// compiled or cached by an earlier run; they alternate with the warm runs and are printed beside
// them. DELTA=24 streams each reply in deltas of 24 characters, as real providers do.
// Run after `npm run build`: node bench/fix-bug.mjs   (RUNS=7 by default)
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { responsesReply } from "./support/responses-sse.mjs";

const RUNS = Number(process.env.RUNS ?? 7);
const SANDBOX = process.env.SANDBOX ?? "danger-full-access";
const CODEX_VERSION = process.env.CODEX_VERSION ?? "0.169.0";
const here = dirname(fileURLToPath(import.meta.url));
const CLI =
  process.env.ATTRACTOR_CLI ?? join(here, "..", "packages", "cli", "dist", "bundle", "attractor.js");

/** The codex command, installed into bench/.peers/codex when absent; undefined (reason printed) when that fails. */
function codexCommand() {
  const prefix = join(here, ".peers", "codex");
  const bin = join(prefix, "node_modules", ".bin", "codex");
  const version = () => {
    try {
      return JSON.parse(
        readFileSync(join(prefix, "node_modules", "@openai", "codex", "package.json"), "utf8"),
      ).version;
    } catch {
      return undefined;
    }
  };
  if (version() !== CODEX_VERSION || !existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    console.log(`installing @openai/codex@${CODEX_VERSION} into bench/.peers/codex …`);
    const r = spawnSync(
      "npm",
      ["install", "--prefix", prefix, "--no-audit", "--no-fund", `@openai/codex@${CODEX_VERSION}`],
      { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] },
    );
    if (r.status !== 0 || !existsSync(bin)) {
      const why = (r.stderr ?? r.error?.message ?? "").trim().split("\n").pop();
      console.log(`skipped codex: npm install failed (${why})`);
      return undefined;
    }
  }
  const probe = spawnSync(bin, ["--version"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.log(
      `skipped codex: it does not run here (${(probe.stderr || probe.error?.message || "").trim()})`,
    );
    return undefined;
  }
  return bin;
}

// ---- the project ----
const root = mkdtempSync(join(tmpdir(), "attractor-bench-fix-bug-"));
const project = join(root, "project");
const BUGGY = "function add(a, b) {\n  return a - b;\n}\nmodule.exports = { add };\n";
function resetProject() {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, "src", "math.js"), BUGGY);
  writeFileSync(
    join(project, "src", "total.js"),
    'const { add } = require("./math.js");\nmodule.exports = (xs) => xs.reduce(add, 0);\n',
  );
  writeFileSync(
    join(project, "test.js"),
    'const { add } = require("./src/math.js");\nprocess.exit(add(2, 3) === 5 ? 0 : 1);\n',
  );
  const git = (...args) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], {
      cwd: project,
      stdio: "ignore",
    });
  git("init", "--quiet");
  git("add", "-A");
  git("commit", "--quiet", "-m", "initial");
}
const fixed = () =>
  readFileSync(join(project, "src", "math.js"), "utf8").includes("return a + b;") &&
  existsSync(join(project, "NOTES.md"));

const PATCH =
  "*** Begin Patch\n*** Update File: src/math.js\n@@ function add(a, b) {\n-  return a - b;\n+  return a + b;\n*** End Patch";
const NOTE = "*** Begin Patch\n*** Add File: NOTES.md\n+add() fixed.\n*** End Patch";
const ANSWER = "Fixed add(); the test passes and NOTES.md records it.";
const SCRIPTS = {
  attractor: [
    { call: ["read_file", { file_path: "src/math.js" }] },
    { call: ["grep", { pattern: "add\\(", path: "." }] },
    { call: ["apply_patch", { patch: PATCH }] },
    { call: ["shell", { command: "node test.js" }] },
    { call: ["write_file", { file_path: "NOTES.md", content: "add() fixed.\n" }] },
    { text: ANSWER },
  ],
  codex: [
    { call: ["exec_command", { cmd: "cat src/math.js" }] },
    { call: ["exec_command", { cmd: "grep -rn 'add(' ." }] },
    { call: ["exec_command", { cmd: `apply_patch <<'EOF'\n${PATCH}\nEOF` }] },
    { call: ["exec_command", { cmd: "node test.js" }] },
    { call: ["exec_command", { cmd: `apply_patch <<'EOF'\n${NOTE}\nEOF` }] },
    { text: ANSWER },
  ],
};

// ---- the scripted model ----
let script = [];
let served = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (!req.url.endsWith("/responses")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end("{}");
      return;
    }
    const step = script[served] ?? { text: ANSWER };
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(responsesReply({ n: served++, ...step }));
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/v1`;

/** HOME and the agents' homes, set up as before a first run: under `dir`. */
function homes(dir) {
  const home = join(dir, "home");
  const attractorHome = join(dir, "attractor-home");
  mkdirSync(attractorHome, { recursive: true });
  // Language servers off: bench/lsp.mjs measures them; codex has none.
  writeFileSync(join(attractorHome, "settings.json"), JSON.stringify({ lsp: { enabled: false } }));
  const codexHome = join(dir, "codex-home");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), codexConfig);
  return { home, attractorHome, codexHome };
}
const codexConfig = [
  'model = "bench-model"',
  'model_provider = "bench"',
  'approval_policy = "never"',
  `sandbox_mode = "${SANDBOX}"`,
  "",
  "[model_providers.bench]",
  'name = "bench"',
  `base_url = "${url}"`,
  'env_key = "BENCH_API_KEY"',
  'wire_api = "responses"',
  "",
].join("\n");
const warmHomes = homes(root);
let freshCount = 0;
/** The homes of one run: shared by the warm runs, new for each fresh one. */
const homesFor = (fresh) => (fresh ? homes(join(root, `fresh-${freshCount++}`)) : warmHomes);

const PROMPT = "The test fails: fix add() and write a note in NOTES.md.";
const env = (h) => ({
  PATH: process.env.PATH,
  LANG: "C.UTF-8",
  HOME: h.home,
  XDG_CACHE_HOME: join(h.home, ".cache"),
});
const AGENTS = {
  attractor: (_, h) => ({
    command: process.execPath,
    args: [CLI, "-p", PROMPT, "--mode", "yolo", "--sandbox", SANDBOX],
    env: { ...env(h), ATTRACTOR_HOME: h.attractorHome, OPENAI_API_KEY: "bench", OPENAI_BASE_URL: url },
  }),
  baseline: (_, h) => ({
    command: process.execPath,
    args: [process.env.BASELINE_CLI, "-p", PROMPT, "--mode", "yolo", "--sandbox", SANDBOX],
    env: { ...env(h), ATTRACTOR_HOME: h.attractorHome, OPENAI_API_KEY: "bench", OPENAI_BASE_URL: url },
  }),
  codex: (bin, h) => ({
    command: bin,
    args: ["exec", "--skip-git-repo-check", PROMPT],
    env: { ...env(h), CODEX_HOME: h.codexHome, BENCH_API_KEY: "bench" },
  }),
};

// CPU time (user+sys) of each run, the agent's process and every process it waited for (git,
// the test, its shell), from GNU time when it is installed: on a loaded machine wall time
// measures the load as much as the agent.
const TIME = ["/usr/bin/time"].find((f) => existsSync(f));
const cpuFile = join(root, "cpu");
/** The CPU time GNU time wrote for the last run, in ms (NaN without it). */
function lastCpuMs() {
  if (TIME === undefined) return Number.NaN;
  const [user, sys] = readFileSync(cpuFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
  return (user + sys) * 1000;
}

/**
 * One run of `agent` (with new homes when `fresh`): ms from spawn to exit and CPU ms, after
 * checking the task was done.
 */
function run(agent, bin, fresh = false) {
  resetProject();
  script = SCRIPTS[agent === "baseline" ? "attractor" : agent];
  served = 0;
  const { command, args, env } = AGENTS[agent](bin, homesFor(fresh));
  const [cmd, ...argv] =
    TIME === undefined ? [command, ...args] : [TIME, "-f", "%U %S", "-o", cpuFile, command, ...args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: project, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      if (stderr.length < 20_000) stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`${agent} exited ${code}: ${stderr.slice(-2000)}`));
      else if (served < 6)
        reject(new Error(`${agent} made ${served} of 6 model requests: ${stderr.slice(-2000)}`));
      else if (!fixed())
        reject(new Error(`${agent} finished without fixing the bug: ${stderr.slice(-2000)}`));
      else resolve({ ms, cpu: lastCpuMs() });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const codex = codexCommand();
const agents = ["attractor", ...(process.env.BASELINE_CLI ? ["baseline"] : []), ...(codex ? ["codex"] : [])];
const MODES = process.env.FRESH === "1" ? ["warm", "fresh"] : ["warm"];
const times = { warm: {}, fresh: {} };
for (const mode of MODES) for (const agent of agents) times[mode][agent] = [];
for (const agent of agents) await run(agent, codex); // warms the file system cache
for (let i = 0; i < RUNS; i++)
  for (const mode of MODES)
    for (const agent of agents) times[mode][agent].push(await run(agent, codex, mode === "fresh"));

const LABEL = {
  warm: "HOME shared by the runs (caches warm)",
  fresh: "new HOME and XDG_CACHE_HOME each run (as in a container)",
};
/** Median wall ms, minimum wall ms and median CPU ms of some runs. */
const summary = (runs) => ({
  ms: median(runs.map((r) => r.ms)),
  min: Math.min(...runs.map((r) => r.ms)),
  cpu: median(runs.map((r) => r.cpu)),
});
const cpuText = (s) => (Number.isNaN(s.cpu) ? "" : `  CPU ${s.cpu.toFixed(0).padStart(5)} ms`);
for (const mode of MODES) {
  const t = times[mode];
  const a = summary(t.attractor);
  console.log(
    `fix-bug task, 6 model turns, whole process, sandbox ${SANDBOX}, deltas ${process.env.DELTA ?? "whole"}, ${LABEL[mode]}, median of ${RUNS} (min); CPU is user+sys of the process and its children:`,
  );
  console.log(`  attractor ${a.ms.toFixed(0).padStart(5)} ms  (min ${a.min.toFixed(0)} ms)${cpuText(a)}`);
  if (process.env.BASELINE_CLI) {
    const b = summary(t.baseline);
    console.log(
      `  BASELINE_CLI build ${b.ms.toFixed(0).padStart(5)} ms  (min ${b.min.toFixed(0)} ms)${cpuText(b)}  ratio ${(a.ms / b.ms).toFixed(2)}x`,
    );
  }
  if (codex) {
    const c = summary(t.codex);
    console.log(
      `  codex     ${c.ms.toFixed(0).padStart(5)} ms  (min ${c.min.toFixed(0)} ms)${cpuText(c)}  @openai/codex ${CODEX_VERSION}`,
    );
    const cpuRatio = Number.isNaN(a.cpu) ? "" : ` (CPU ${(a.cpu / c.cpu).toFixed(2)}x)`;
    console.log(
      `attractor / codex: ${(a.ms / c.ms).toFixed(2)}x${cpuRatio} against the 0.5x target: ${a.ms / c.ms <= 0.5 ? "met" : "NOT met"}`,
    );
  }
}
server.close();
rmSync(root, { recursive: true, force: true });
