// Cold import of the libraries: a fresh node process per sample imports `@attractor/llm`,
// `@attractor/agent`, `@attractor/runtime` and, when installed, `@anthropic-ai/claude-agent-sdk` (a root devDependency)
// side by side, interleaved so all see the same machine load. Prints the median time of the
// import itself (measured inside the process) and of the whole process (spawn to exit), and the
// ratios to the Claude Agent SDK. Targets: `import("@attractor/agent")` and
// `import("@attractor/runtime")` each at most 400 ms for the whole process, and at most 1.2x the
// Claude Agent SDK's.
// Baseline: `node -e ''` (the process floor). BASELINE_ROOT=<another checkout, built, with its
// node_modules> measures that checkout's packages too (for before/after).
// Run after `npm run build`: node bench/import.mjs   (RUNS=15 by default)
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const RUNS = Number(process.env.RUNS ?? 15);
const TARGET_MS = 400;
const TARGET_RATIO = 1.2;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The ES module entry of a package installed in a checkout's node_modules, as a file URL. */
function resolveFrom(checkout, name) {
  const folder = join(checkout, "node_modules", name);
  if (!existsSync(join(folder, "package.json"))) return undefined;
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  let target = manifest.exports?.["."] ?? manifest.exports ?? manifest.main;
  while (target && typeof target === "object") target = target.import ?? target.default;
  return pathToFileURL(join(folder, target ?? "index.js")).href;
}

const subjects = [
  ["node -e '' (process floor)", undefined],
  ["@attractor/llm", resolveFrom(root, "@attractor/llm")],
  ["@attractor/agent", resolveFrom(root, "@attractor/agent")],
  ["@attractor/runtime", resolveFrom(root, "@attractor/runtime")],
];
const sdk = resolveFrom(root, "@anthropic-ai/claude-agent-sdk");
if (sdk) subjects.push(["@anthropic-ai/claude-agent-sdk", sdk]);
else console.log("@anthropic-ai/claude-agent-sdk is not installed (npm install): no side-by-side figure");
const baseline = process.env.BASELINE_ROOT;
if (baseline) {
  subjects.push(["@attractor/llm (BASELINE_ROOT)", resolveFrom(baseline, "@attractor/llm")]);
  subjects.push(["@attractor/agent (BASELINE_ROOT)", resolveFrom(baseline, "@attractor/agent")]);
  const runtime = resolveFrom(baseline, "@attractor/runtime");
  if (runtime) subjects.push(["@attractor/runtime (BASELINE_ROOT)", runtime]);
}

/** One sample: ms of the import inside the process, and of the process from spawn to exit. */
function sample(url) {
  const code = url
    ? `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`
    : "";
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      const total = performance.now() - t0;
      if (status !== 0) reject(new Error(`importing ${url} failed (${status}): ${err}`));
      else resolve({ total, load: url ? Number(out) : 0 });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [, url] of subjects) await sample(url); // warms the file system cache
const samples = subjects.map(() => []);
for (let i = 0; i < RUNS; i++)
  for (const [n, [, url]] of subjects.entries()) samples[n].push(await sample(url));
const rows = subjects.map(([label], n) => ({
  label,
  load: median(samples[n].map((s) => s.load)),
  total: median(samples[n].map((s) => s.total)),
}));
const peer = rows.find((r) => r.label === "@anthropic-ai/claude-agent-sdk");
for (const r of rows) {
  const ratio =
    peer && r !== peer && r.load > 0
      ? `  ${(r.total / peer.total).toFixed(2)}x the SDK's process, ${(r.load / peer.load).toFixed(2)}x its import`
      : "";
  console.log(
    `${r.label.padEnd(40)} import ${r.load.toFixed(0).padStart(4)} ms  process ${r.total.toFixed(0).padStart(4)} ms${ratio}`,
  );
}
for (const name of ["@attractor/agent", "@attractor/runtime"]) {
  const row = rows.find((r) => r.label === name);
  const verdicts = [
    `${row.total.toFixed(0)} ms against ${TARGET_MS} ms: ${row.total <= TARGET_MS ? "met" : "NOT met"}`,
  ];
  if (peer) {
    const ratio = row.total / peer.total;
    verdicts.push(
      `${ratio.toFixed(2)}x the Claude Agent SDK against ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "met" : "NOT met"}`,
    );
  }
  console.log(`cold import("${name}"), whole process: ${verdicts.join("; ")} (RUNS=${RUNS})`);
}
