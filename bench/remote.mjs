// The fix-bug task (read, edit, run the test, answer) as a whole `attractor -p` process, with the
// tools local and with them on an SSH host (`--remote`, a real sshd started here on 127.0.0.1),
// against a zero-latency model: the per-task overhead of running the tools over SSH. Then each
// round's tool work alone (read, edit, run the test, search) through the two environments on the
// same files, local and remote alternated so the machine's load hits both alike.
// Needs root and openssh-server. Run after `npm run build`: node bench/remote.mjs   (RUNS=10;
// SFTP=0: a host without an SFTP subsystem, files over exec)
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { loadavg, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicReply } from "./support/anthropic-sse.mjs";

const RUNS = Number(process.env.RUNS ?? 10);
const SFTP = process.env.SFTP !== "0";
const CLI = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "packages",
  "cli",
  "dist",
  "bundle",
  "attractor.js",
);
if (!existsSync("/usr/sbin/sshd") || process.getuid?.() !== 0) {
  console.log("needs root and /usr/sbin/sshd (Debian package openssh-server): skipped");
  process.exit(0);
}
const root = mkdtempSync(join(tmpdir(), "attractor-bench-remote-"));

// ---- sshd on a free port with throwaway keys ----
const keygen = (file) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", file]);
keygen(join(root, "host_key"));
keygen(join(root, "user_key"));
writeFileSync(join(root, "authorized_keys"), readFileSync(join(root, "user_key.pub")));
mkdirSync("/run/sshd", { recursive: true });
const port = await new Promise((resolve) => {
  const s = createNetServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
writeFileSync(
  join(root, "sshd_config"),
  [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${join(root, "host_key")}`,
    `AuthorizedKeysFile ${join(root, "authorized_keys")}`,
    "PasswordAuthentication no",
    "PermitRootLogin prohibit-password",
    "UsePAM no",
    "StrictModes no",
    `PidFile ${join(root, "sshd.pid")}`,
    ...(SFTP ? ["Subsystem sftp internal-sftp"] : []),
  ].join("\n"),
);
const sshd = spawn("/usr/sbin/sshd", ["-D", "-f", join(root, "sshd_config")], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 500));
const home = join(root, "home");
mkdirSync(join(home, ".ssh"), { recursive: true });
const hostPub = readFileSync(join(root, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
writeFileSync(join(home, ".ssh", "known_hosts"), `[127.0.0.1]:${port} ${hostPub}\n`);
writeFileSync(
  join(home, ".ssh", "config"),
  `Host benchhost\n  HostName 127.0.0.1\n  Port ${port}\n  User ${userInfo().username}\n  IdentityFile ${join(root, "user_key")}\n`,
);

// ---- a zero-latency Anthropic model scripted for the fix ----
const steps = [
  { name: "read_file", input: { file_path: "src/math.js" } },
  { name: "edit_file", input: { file_path: "src/math.js", old_string: "a - b", new_string: "a + b" } },
  { name: "shell", input: { command: "node test.js" } },
];
// When each model request arrived during the current run: the gaps are the task's rounds.
let arrivals = [];
const model = createServer((req, res) => {
  arrivals.push(performance.now());
  let body = "";
  req.on("data", (d) => {
    body += d;
  });
  req.on("end", () => {
    const results = JSON.parse(body).messages.filter(
      (m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
    ).length;
    const step = steps[results];
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      anthropicReply({
        n: results,
        model: "claude-sonnet-4-5",
        ...(step ? { tool: step.name, args: step.input } : { text: "Fixed." }),
        inputTokens: 100,
        outputTokens: 10,
      }),
    );
  });
});
await new Promise((r) => model.listen(0, "127.0.0.1", r));

const project = join(root, "project");
mkdirSync(join(project, "src"), { recursive: true });
const reset = () => {
  writeFileSync(
    join(project, "src", "math.js"),
    "function add(a, b) {\n  return a - b;\n}\nmodule.exports = { add };\n",
  );
  writeFileSync(
    join(project, "test.js"),
    'const { add } = require("./src/math.js");\nprocess.exit(add(2, 3) === 5 ? 0 : 1);\n',
  );
};
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: userInfo().username,
  ATTRACTOR_HOME: join(root, "attractor"),
  ANTHROPIC_API_KEY: "bench",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.address().port}`,
};
// The model server lives in this process, so runs are awaited, never spawned synchronously.
const runOnce = (extra) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "-p", "fix add", "--permission-mode", "yolo", ...extra], {
      cwd: project,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (status) => resolve({ status, stderr }));
  });
/** Phases of each run: start until the first model request, each round, the end after the answer. */
const phases = { local: [], remote: [] };
const time = async (extra, runs = RUNS) => {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    reset();
    arrivals = [];
    const started = performance.now();
    const r = await runOnce(extra);
    const ended = performance.now();
    samples.push(ended - started);
    const marks = [started, ...arrivals, ended];
    phases[extra.length === 0 ? "local" : "remote"].push(marks.slice(1).map((m, j) => m - marks[j]));
    if (r.status !== 0 || !readFileSync(join(project, "src", "math.js"), "utf8").includes("a + b"))
      throw new Error(`the run failed: ${r.stderr}`);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
};
const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
// Whole tasks, local and remote alternated.
const taskSamples = { local: [], remote: [] };
for (let i = 0; i < RUNS; i++) {
  taskSamples.local.push(await time([], 1));
  taskSamples.remote.push(await time(["--remote", `benchhost:${project}`], 1));
}
const phaseNames = ["start (connect)", ...steps.map((s) => `round: ${s.name}`), "answer and exit"];
console.log(
  `fix-bug task by phase, median of ${RUNS} alternated runs (load: ${loadavg()[0].toFixed(1)})${SFTP ? "" : ", host without SFTP"}:`,
);
phaseNames.forEach((name, j) => {
  const l = median(phases.local.map((p) => p[j]));
  const r = median(phases.remote.map((p) => p[j]));
  console.log(
    `  ${name.padEnd(22)} local ${l.toFixed(0).padStart(6)} ms   remote ${r.toFixed(0).padStart(6)} ms   ${(r / l).toFixed(2)}x`,
  );
});
const local = median(taskSamples.local);
const remote = median(taskSamples.remote);
console.log(`fix-bug task (read, edit, shell, answer), median of ${RUNS} whole-process runs, alternated:`);
console.log(`  tools local:        ${local.toFixed(0)} ms`);
console.log(
  `  tools over SSH:     ${remote.toFixed(0)} ms (${(remote / local).toFixed(2)}x; +${(remote - local).toFixed(0)} ms per task: connection, SFTP and exec round trips)`,
);

// Each round's tool work, through the environments themselves (one connection, as in a session).
const agent = await import(join(dirname(CLI), "..", "..", "..", "agent", "dist", "index.js"));
reset();
const envs = {
  local: new agent.LocalExecutionEnvironment({ workingDirectory: project }),
  remote: new agent.SshExecutionEnvironment({
    host: "127.0.0.1",
    port,
    username: userInfo().username,
    privateKeyPath: join(root, "user_key"),
    knownHostsPath: join(home, ".ssh", "known_hosts"),
    workingDirectory: project,
  }),
};
await envs.remote.initialize();
const rounds = {
  read_file: (e) => e.readFile("src/math.js"),
  edit_file: async (e) => {
    const text = await e.readFile("src/math.js");
    await e.writeFile(
      "src/math.js",
      text.includes("a - b") ? text.replace("a - b", "a + b") : text.replace("a + b", "a - b"),
    );
  },
  "shell (node test.js)": (e) => e.execCommand("node test.js"),
  "shell (git status)": (e) => e.execCommand("git status --short || true"),
  grep: (e) => e.grep("add", "."),
};
const ROUNDS = RUNS * 3;
console.log(
  `each round's tool work, median of ${ROUNDS} alternated calls (load: ${loadavg()[0].toFixed(1)}):`,
);
for (const [name, round] of Object.entries(rounds)) {
  const samples = { local: [], remote: [] };
  for (let i = 0; i < ROUNDS; i++)
    for (const side of ["local", "remote"]) {
      const started = performance.now();
      await round(envs[side]);
      samples[side].push(performance.now() - started);
    }
  const l = median(samples.local);
  const r = median(samples.remote);
  console.log(
    `  ${name.padEnd(22)} local ${l.toFixed(1).padStart(7)} ms   remote ${r.toFixed(1).padStart(7)} ms   ${(r / l).toFixed(2)}x`,
  );
}
await envs.remote.cleanup();
sshd.kill("SIGTERM");
model.close();
rmSync(root, { recursive: true, force: true });
