// Memory held by 100 idle sessions, each after one completed tool round.
// Run after `npm run build`: node --expose-gc bench/idle-sessions.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProfileRegistry, createProviderProfile, Session } from "../packages/agent/dist/index.js";

const N = Number(process.env.SESSIONS ?? 100);
const dir = mkdtempSync(join(tmpdir(), "attractor-bench-"));
const gc = globalThis.gc ?? (() => {});

const env = {
  initialize: async () => {},
  cleanup: async () => {},
  workingDirectory: () => dir,
  platform: () => process.platform,
  osVersion: () => "bench",
  resolvePath: (p) => join(dir, p),
  stat: async () => undefined,
  // No git here: the snapshot command reports "not a repository".
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

function client() {
  let i = 0;
  return {
    async *stream(request) {
      const call = i++ % 2 === 0;
      const content = call
        ? [{ kind: "tool_call", toolCall: { id: `c${i}`, name: "echo", arguments: { text: "x" } } }]
        : [{ kind: "text", text: "done" }];
      const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
      const finishReason = { reason: call ? "tool_calls" : "stop" };
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

const mb = (n) => (n / 1024 / 1024).toFixed(1);
gc();
const before = process.memoryUsage();
const sessions = [];
for (let s = 0; s < N; s++) {
  const profile = createProviderProfile({
    id: "bench",
    model: "bench-model",
    basePrompt: "You are a benchmark.",
    toolRegistry: createProfileRegistry([echo]),
    projectDocFiles: [],
  });
  const session = new Session({ profile, environment: env, client: client() });
  await session.submit("hello");
  sessions.push(session);
}
gc();
const after = process.memoryUsage();
const heap = after.heapUsed - before.heapUsed;
console.log(
  `${N} idle sessions: heap +${mb(heap)} MB (${(heap / N / 1024).toFixed(1)} KB each), rss ${mb(after.rss)} MB in all (target < 300 MB, ratio ${(after.rss / (300 * 1024 * 1024)).toFixed(2)})`,
);
await Promise.all(sessions.map((s) => s.close()));
rmSync(dir, { recursive: true, force: true });
