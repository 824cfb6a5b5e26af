// The session loop's own overhead per tool round, with a zero-latency in-process model and a
// no-op tool, against a baseline that drives the same model calls without a session.
// Run after `npm run build`: node bench/loop.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProfileRegistry, createProviderProfile, Session } from "../packages/agent/dist/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 500);
const dir = mkdtempSync(join(tmpdir(), "attractor-bench-"));
const env = {
  initialize: async () => {},
  cleanup: async () => {},
  workingDirectory: () => dir,
  platform: () => process.platform,
  osVersion: () => "bench",
  resolvePath: (p) => join(dir, p),
  stat: async () => undefined,
  execCommand: async () => ({
    stdout: "",
    stderr: "",
    output: "",
    exitCode: 3,
    timedOut: false,
    aborted: false,
    durationMs: 0,
    droppedBytes: 0,
  }),
};

function model(rounds) {
  let i = 0;
  return {
    async *stream(request) {
      const call = i++ < rounds;
      const content = call
        ? [{ kind: "tool_call", toolCall: { id: `c${i}`, name: "echo", arguments: { text: `n${i}` } } }]
        : [{ kind: "text", text: "done" }];
      const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
      const finishReason = { reason: call ? "tool_calls" : "stop" };
      yield { type: "stream_start", id: `r${i}` };
      yield {
        type: "finish",
        finishReason,
        usage,
        response: {
          id: `r${i}`,
          model: request.model,
          provider: "bench",
          message: { role: "assistant", content },
          finishReason,
          usage,
          warnings: [],
        },
      };
    },
  };
}
const echo = {
  definition: {
    name: "echo",
    description: "echo",
    parameters: { type: "object", properties: { text: { type: "string" } } },
  },
  executor: async (args) => String(args.text),
};

async function baseline() {
  const m = model(ROUNDS);
  const t0 = performance.now();
  for (let r = 0; r <= ROUNDS; r++) for await (const _ of m.stream({ model: "m", messages: [] }));
  return performance.now() - t0;
}

async function session() {
  const profile = createProviderProfile({
    id: "bench",
    model: "bench-model",
    basePrompt: "You are a benchmark.",
    toolRegistry: createProfileRegistry([echo]),
    projectDocFiles: [],
  });
  const s = new Session({
    profile,
    environment: env,
    client: model(ROUNDS),
    config: { enableLoopDetection: true },
  });
  let events = 0;
  s.subscribe(() => events++);
  const t0 = performance.now();
  await s.submit("go");
  const ms = performance.now() - t0;
  await s.close();
  return { ms, events };
}

await baseline();
await session(); // warm-up
const base = await baseline();
const { ms, events } = await session();
const per = (ms - base) / ROUNDS;
console.log(`${ROUNDS} tool rounds: session ${ms.toFixed(1)} ms, bare model calls ${base.toFixed(1)} ms`);
console.log(
  `loop overhead per round: ${per.toFixed(3)} ms (target < 2 ms, ratio ${(per / 2).toFixed(3)}); ${events} events`,
);
console.log("note: history grows with every round, so later rounds rebuild longer message lists");
rmSync(dir, { recursive: true, force: true });
