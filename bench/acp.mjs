// `attractor acp` as an editor sees it, against a zero-latency scripted Anthropic server on
// 127.0.0.1, spoken to in raw JSON-RPC over the child's stdio (as Zed does): the time from
// writing a `session/prompt` request to reading the first `session/update` of that prompt, for
// the first prompt of a new session (sent at once after session/new, and 1 s after it, as a user
// typing would), and for a later prompt; and from spawning the agent to its initialize answer.
// Target: first update under 150 ms.
// Baseline in the same run: headless mode (`attractor -p`, text output), process start to the
// first byte of the answer on stdout, and to the model request.
// Run after `npm run build`: node bench/acp.mjs   (RUNS=10 by default)
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicReply } from "./support/anthropic-sse.mjs";

const RUNS = Number(process.env.RUNS ?? 10);
const TARGET_MS = 150;
const CLI =
  process.env.ATTRACTOR_CLI ??
  join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "dist", "bundle", "attractor.js");

const root = mkdtempSync(join(tmpdir(), "attractor-bench-acp-"));
const project = join(root, "project");
mkdirSync(join(project, "src"), { recursive: true });
writeFileSync(join(project, "src", "math.js"), "export const add = (a, b) => a - b;\n");
// Language servers off: they are not on the way to the first update.
mkdirSync(join(root, "attractor-home"), { recursive: true });
writeFileSync(join(root, "attractor-home", "settings.json"), JSON.stringify({ lsp: { enabled: false } }));

let onRequest = () => {};
let n = 0;
const server = createServer((req, res) => {
  onRequest();
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      anthropicReply({ n: n++, model: "claude-sonnet-4-5", text: "hi", inputTokens: 10, outputTokens: 1 }),
    );
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const env = {
  PATH: process.env.PATH,
  HOME: join(root, "home"),
  ATTRACTOR_HOME: join(root, "attractor-home"),
  LANG: "C.UTF-8",
  ANTHROPIC_API_KEY: "bench",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
};

/** A raw JSON-RPC peer over the agent's stdio: requests by id, notifications to a listener. */
function startAgent() {
  const child = spawn(process.execPath, [CLI, "acp"], { cwd: project, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const pending = new Map();
  let onNotification = () => {};
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines) {
      if (line.trim() === "") continue;
      const message = JSON.parse(line);
      if (message.id !== undefined && message.method === undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${message.error.message}\n${stderr}`));
        else waiter?.resolve(message.result);
      } else if (message.method === "session/update") onNotification(message.params);
      else if (message.id !== undefined) {
        // A request of the agent's (none is expected here): answered so nothing waits on it.
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: null })}\n`);
      }
    }
  });
  let nextId = 0;
  return {
    request(method, params) {
      const id = ++nextId;
      const sent = performance.now();
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return { sent, result: new Promise((resolve, reject) => pending.set(id, { resolve, reject })) };
    },
    set onNotification(fn) {
      onNotification = fn;
    },
    close: () =>
      new Promise((resolve) => {
        child.on("close", resolve);
        child.stdin.end();
      }),
  };
}

/** One prompt: ms from writing the request to the first update, and to the model's request. */
async function timePrompt(agent, sessionId) {
  let firstUpdate;
  let modelRequest;
  const updates = [];
  agent.onNotification = (params) => {
    firstUpdate ??= performance.now();
    updates.push(params.update.sessionUpdate);
  };
  onRequest = () => {
    modelRequest ??= performance.now();
  };
  const { sent, result } = agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "say hi" }],
  });
  const answer = await result;
  if (answer.stopReason !== "end_turn") throw new Error(`stopReason ${answer.stopReason}`);
  // The answer is the only thing the prompt should have sent: anything else (a warning) would
  // make the first update no measure of the answer.
  if (updates.some((u) => u !== "agent_message_chunk")) throw new Error(`unexpected updates: ${updates}`);
  return { update: firstUpdate - sent, request: modelRequest - sent };
}

/** A new agent and session; the first prompt `pauseMs` after session/new, then a later one. */
async function acpRun(pauseMs) {
  const started = performance.now();
  const agent = startAgent();
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).result;
  const initialized = performance.now() - started;
  // The commands update that follows session/new is not a prompt's: it is waited for first.
  const commands = new Promise((resolve) => {
    agent.onNotification = (params) => {
      if (params.update.sessionUpdate === "available_commands_update") resolve();
    };
  });
  const { sessionId } = await agent.request("session/new", { cwd: project, mcpServers: [] }).result;
  await commands;
  await new Promise((r) => setTimeout(r, pauseMs));
  const first = await timePrompt(agent, sessionId);
  const later = await timePrompt(agent, sessionId);
  await agent.close();
  return { initialized, first, later };
}

/** Headless: ms from spawning `attractor -p` to the model request and to the first stdout byte. */
function headlessRun() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let request;
    let output;
    onRequest = () => {
      request ??= performance.now() - t0;
    };
    const child = spawn(process.execPath, [CLI, "-p", "say hi"], {
      cwd: project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.once("data", () => {
      output = performance.now() - t0;
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve({ request, output }) : reject(new Error(`attractor -p exited ${code}`)),
    );
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await acpRun(0); // warms the file system cache
await headlessRun();
const acp = [];
const typed = [];
const headless = [];
for (let i = 0; i < RUNS; i++) {
  acp.push(await acpRun(0));
  typed.push(await acpRun(1000));
  headless.push(await headlessRun());
}
const rows = [
  ["acp: spawn to initialize answered", acp.map((r) => r.initialized)],
  ["acp: first prompt at once, request to first update", acp.map((r) => r.first.update)],
  ["acp: first prompt at once, request to model request", acp.map((r) => r.first.request)],
  ["acp: first prompt after 1 s, request to first update", typed.map((r) => r.first.update)],
  ["acp: later prompt, request to first update", acp.map((r) => r.later.update)],
  ["headless -p: process start to model request", headless.map((r) => r.request)],
  ["headless -p: process start to first output", headless.map((r) => r.output)],
];
const baseline = median(headless.map((r) => r.output));
for (const [label, times] of rows) {
  const m = median(times);
  console.log(
    `${label.padEnd(54)} ${m.toFixed(0).padStart(5)} ms median  (min ${Math.min(...times).toFixed(0)} ms)  ${(m / baseline).toFixed(2)}x headless first output`,
  );
}
for (const [label, times] of [
  ["first prompt sent at once", acp.map((r) => r.first.update)],
  ["first prompt after 1 s", typed.map((r) => r.first.update)],
  ["later prompt", acp.map((r) => r.later.update)],
]) {
  const m = median(times);
  console.log(
    `acp first update, ${label}: ${m.toFixed(0)} ms against the ${TARGET_MS} ms target: ${m <= TARGET_MS ? "met" : "NOT met"}`,
  );
}
console.log(`(RUNS=${RUNS}; load average ${(await import("node:os")).loadavg()[0].toFixed(1)})`);
server.close();
rmSync(root, { recursive: true, force: true });
