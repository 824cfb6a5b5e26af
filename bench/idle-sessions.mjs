// Memory held by 100 idle sessions, each with the real Anthropic profile (its tools and system
// prompt), its own LocalExecutionEnvironment, and one completed input of one tool round and a
// text answer, served over loopback HTTP through the real AnthropicAdapter by a zero-latency model
// server. Baseline: the process with the server and the client up, before any session exists.
// Run after `npm run build`: node --expose-gc bench/idle-sessions.mjs   (SESSIONS=100 by default)
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAnthropicProfile, LocalExecutionEnvironment, Session } from "../packages/agent/dist/index.js";
import { AnthropicAdapter, Client } from "../packages/llm/dist/index.js";
import { anthropicReply } from "./support/anthropic-sse.mjs";

const N = Number(process.env.SESSIONS ?? 100);
const MODEL = "claude-opus-4-6";
const dir = mkdtempSync(join(tmpdir(), "attractor-bench-"));
const gc = globalThis.gc ?? (() => {});
if (!globalThis.gc) console.log("(run with --expose-gc for stable heap figures)");

// The model: a tool call when the request carries no tool result yet, else a short answer.
let served = 0;
const reply = (n, call) =>
  anthropicReply({
    n,
    model: MODEL,
    args: call && { text: "hello" },
    text: "All done here.",
    inputTokens: 3000,
    outputTokens: 20,
  });
const server = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(reply(++served, !body.includes('"tool_result"')));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const client = new Client({
  providers: {
    anthropic: new AnthropicAdapter({
      apiKey: "bench",
      baseUrl: `http://127.0.0.1:${server.address().port}`,
      env: {},
    }),
  },
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

const mb = (n) => (n / 1024 / 1024).toFixed(1);
async function newSession() {
  const profile = createAnthropicProfile(MODEL);
  profile.toolRegistry.register(echo);
  const session = new Session({
    profile,
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client,
    retry: { maxRetries: 0 },
  });
  await session.submit("Say hello through the echo tool.");
  if (session.history.length !== 4)
    throw new Error(`unexpected history: ${session.history.map((t) => t.kind)}`);
  return session;
}

// Warm up the adapter and SDK (loaded lazily) before the baseline.
await (await newSession()).close();
gc();
const before = process.memoryUsage();
const sessions = [];
for (let s = 0; s < N; s++) sessions.push(await newSession());
gc();
const after = process.memoryUsage();
const heap = after.heapUsed - before.heapUsed;
console.log(
  `${N} idle sessions (one tool round each): heap +${mb(heap)} MB (${(heap / N / 1024).toFixed(1)} KB each), rss ${mb(after.rss)} MB in all, ${mb(before.rss)} MB before (target < 300 MB in all, ratio ${(after.rss / (300 * 1024 * 1024)).toFixed(2)})`,
);
await Promise.all(sessions.map((s) => s.close()));
await client.close();
server.close();
rmSync(dir, { recursive: true, force: true });
