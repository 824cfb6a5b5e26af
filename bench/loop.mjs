// The session loop's own overhead per tool round: a Session with the real Anthropic profile, the
// real Client and AnthropicAdapter talking SSE over loopback HTTP to a zero-latency model server
// (it answers every request at once with a tool call, then with text), LocalExecutionEnvironment
// and a no-op tool. Baseline: the very requests the session sent, replayed with bare
// Client.stream() calls through the same adapter and server; the difference is the loop itself:
// request building from history, system prompt, event emission, tool dispatch with validation,
// truncation, loop detection, context tracking and history bookkeeping. The same run also shows
// the whole round trip per round against a fixed one-message request.
// Run after `npm run build`: node bench/loop.mjs   (ROUNDS=200 by default)
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAnthropicProfile, LocalExecutionEnvironment, Session } from "../packages/agent/dist/index.js";
import { AnthropicAdapter, Client, userMessage } from "../packages/llm/dist/index.js";
import { anthropicReply } from "./support/anthropic-sse.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const MODEL = "claude-opus-4-6";
const dir = mkdtempSync(join(tmpdir(), "attractor-bench-"));

// The model: answers the first `budget` requests of a run with a tool call and the next with text.
let budget = 0;
let served = 0;
const reply = (n, call) =>
  anthropicReply({ n, model: MODEL, args: call && { text: `n${n}` }, inputTokens: 100, outputTokens: 10 });
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const n = ++served;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(reply(n, n <= budget));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}`;
const client = new Client({
  providers: { anthropic: new AnthropicAdapter({ apiKey: "bench", baseUrl: url, env: {} }) },
});

const echo = {
  definition: {
    name: "echo",
    description: "Echo the text back.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  executor: async (args) => String(args.text),
  readOnly: true,
};

/** Starts measuring; the returned function gives wall and process CPU milliseconds since. */
function startClock() {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(c0);
    return { ms: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
  };
}

function startRun(rounds) {
  budget = rounds;
  served = 0;
}

/** Bare stream calls: the given requests in order, or a fixed one-message request. */
async function baseline(rounds, requests) {
  startRun(rounds);
  const profile = createAnthropicProfile(MODEL);
  profile.toolRegistry.register(echo);
  const fixed = {
    model: MODEL,
    provider: "anthropic",
    messages: [userMessage("go")],
    tools: profile.tools(),
  };
  const clock = startClock();
  for (let r = 0; r <= rounds; r++) for await (const _ of client.stream(requests?.[r] ?? fixed));
  return clock();
}

async function session(rounds) {
  startRun(rounds);
  const profile = createAnthropicProfile(MODEL);
  profile.toolRegistry.register(echo);
  const requests = [];
  const recording = {
    stream(request) {
      // Kept without the signal, which is aborted once the session closes.
      const { signal: _signal, ...replayable } = request;
      requests.push(replayable);
      return client.stream(request);
    },
  };
  const s = new Session({
    profile,
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client: recording,
    retry: { maxRetries: 0 },
    // The rounds are the workload: no ceiling (the default stops an input at 200 rounds).
    config: { maxToolRoundsPerInput: 0 },
  });
  let events = 0;
  s.subscribe(() => events++);
  const roundEnds = [];
  s.subscribe((e) => {
    if (e.kind === "tool_call_end") roundEnds.push(performance.now());
  });
  const clock = startClock();
  await s.submit("go");
  const { ms, cpu } = clock();
  await s.close();
  if (s.history.filter((t) => t.kind === "tool_results").length !== rounds) throw new Error("rounds not run");
  return { ms, cpu, events, roundEnds, requests };
}

// Warm up the adapter, the SDK and the JIT, then take the best of five of each measurement: the
// machine may be shared, and the minimum is the least disturbed. CPU time (this process, server
// included on both sides) is less sensitive to other load than wall time.
await session(20);
await baseline(20);
const runs = [];
const replays = [];
const fixedRuns = [];
for (let i = 0; i < 5; i++) {
  const r = await session(ROUNDS);
  runs.push(r);
  replays.push(await baseline(ROUNDS, r.requests));
  fixedRuns.push(await baseline(ROUNDS));
}
const best = (list, key) => Math.min(...list.map((x) => x[key]));
const run = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
const per = (key) => (best(runs, key) - best(replays, key)) / ROUNDS;
const total = (key) => (best(runs, key) - best(fixedRuns, key)) / ROUNDS;
const ratio = (ms) => (ms / 2).toFixed(3);
// Per-round wall time over the first and last tenth, to show the effect of the growing history.
const tenth = Math.max(1, Math.floor(ROUNDS / 10));
const span = (from, to) => (run.roundEnds[to] - run.roundEnds[from]) / (to - from);
console.log(`${ROUNDS} tool rounds over loopback HTTP (AnthropicAdapter, SSE), LocalExecutionEnvironment:`);
console.log(
  `  wall: session ${best(runs, "ms").toFixed(1)} ms; the same requests replayed ${best(replays, "ms").toFixed(1)} ms; a fixed one-message request x${ROUNDS + 1} ${best(fixedRuns, "ms").toFixed(1)} ms`,
);
console.log(
  `  cpu:  session ${best(runs, "cpu").toFixed(1)} ms; replayed ${best(replays, "cpu").toFixed(1)} ms; fixed ${best(fixedRuns, "cpu").toFixed(1)} ms`,
);
console.log(
  `  loop overhead per round: ${per("ms").toFixed(3)} ms wall, ${per("cpu").toFixed(3)} ms cpu (target < 2 ms, ratios ${ratio(per("ms"))} / ${ratio(per("cpu"))}); ${run.events} events`,
);
console.log(
  `  loop + translating and sending the growing history, per round: ${total("ms").toFixed(3)} ms wall, ${total("cpu").toFixed(3)} ms cpu (ratios ${ratio(total("ms"))} / ${ratio(total("cpu"))})`,
);
console.log(
  `  wall time per round incl. HTTP: first ${tenth} rounds ${span(0, tenth).toFixed(3)} ms, last ${tenth} ${span(ROUNDS - 1 - tenth, ROUNDS - 1).toFixed(3)} ms (history grows every round)`,
);
await client.close();
server.close();
rmSync(dir, { recursive: true, force: true });
