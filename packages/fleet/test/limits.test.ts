// Provider limits against a real redis-server, a scripted provider on 127.0.0.1 that refuses any
// key but the worker's, and real attractor processes: two workers share one limit in requests,
// the proxy counts the tokens answers report (streamed or not) and holds requests while they are
// spent, the agent never holds the key, and a provider's 429 still pauses the queue as before.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH, cleanEnv, replyFor, requireBuiltCli, runCliProcess } from "@attractor/cli/testing";
import { type RecordedRequest, startWireServer, type WireServer } from "@attractor/llm/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FleetTask,
  fleetStatus,
  KEY_PLACEHOLDER,
  ProviderLimitError,
  type ProxiedAnswer,
  readResults,
  runWorker,
  startProviderProxy,
  submitTasks,
  windowUse,
} from "../src/index.js";
import { agentProcesses } from "./support/processes.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";

const skip = redisUnavailable();
const KEY = "the-worker-s-real-key";
let redis: TestRedis;
let client: Redis;
let root: string;
let repo: string;
let provider: WireServer;
/** When each request reached the provider, by task id. */
const arrivals: { id: string; at: number }[] = [];
/** The environment of the agent processes of "key-" tasks, read from /proc while they ask the model. */
const agentEnvs: string[] = [];
/** Tasks whose first requests get a 429: how many more of them. */
const reject429 = new Map<string, number>();

type Body = { messages?: { role: string; content: string | { type: string; text?: string }[] }[] };
const taskOf = (body: Body) => {
  const first = body.messages?.find((m) => m.role === "user");
  const text =
    typeof first?.content === "string"
      ? first.content
      : (first?.content ?? []).map((b) => b.text ?? "").join("");
  return /task:(\S+)/.exec(text)?.[1] ?? "unknown";
};
const toolDone = (body: Body) =>
  (body.messages ?? []).some(
    (m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
  );

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  redis = await startRedis();
  client = new Redis(redis.url);
  client.on("error", () => undefined);
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-limits-"));
  repo = await createRepo(root);
  provider = await startWireServer(async (request: RecordedRequest) => {
    if (request.headers["x-api-key"] !== KEY)
      return {
        kind: "json",
        status: 401,
        body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
      };
    if (request.path === "/v1/plain")
      return { kind: "json", body: { id: "x", usage: { input_tokens: 70, output_tokens: 5 } } };
    if (request.path === "/v1/slow") {
      await new Promise((r) => setTimeout(r, 400));
      return { kind: "json", body: { id: "x", usage: { input_tokens: 40, output_tokens: 2 } } };
    }
    const body = request.body as Body;
    const id = taskOf(body);
    arrivals.push({ id, at: Date.now() });
    if (id.startsWith("key-"))
      for (const pid of agentProcesses(`task:${id}`))
        agentEnvs.push(await readFile(`/proc/${pid}/environ`, "utf8").catch(() => ""));
    if (!toolDone(body)) {
      const left = reject429.get(id) ?? 0;
      if (left > 0) {
        reject429.set(id, left - 1);
        return {
          kind: "json",
          status: 429,
          headers: { "retry-after": "0" },
          body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
        };
      }
      return replyFor("anthropic", undefined, [
        { name: "write_file", args: { file_path: `out/${id}.txt`, content: `${id}\n` } },
      ]);
    }
    return replyFor("anthropic", `done ${id}`, []);
  });
}, 60_000);

afterAll(async () => {
  if (skip) return;
  client?.disconnect();
  await provider?.close();
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const workerEnv = () => cleanEnv(root, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: provider.url });
const tasks = (prefix: string, n: number): FleetTask[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    repo,
    prompt: `task:${prefix}-${i} write the file`,
    provider: "anthropic",
  }));
const connection = (queue: string) => ({
  redis: redis.url,
  queue,
  env: workerEnv(),
  store: join(root, "store"),
});
const worker = (queue: string, extra: Partial<Parameters<typeof runWorker>[0]> = {}) =>
  runWorker({
    ...connection(queue),
    command: [process.execPath, CLI_PATH],
    concurrency: 3,
    exitWhenIdle: true,
    workRoot: join(root, "work"),
    ...extra,
  });

describe.skipIf(skip)("provider limits", () => {
  it("two workers share one limit in requests: no window of the provider sees more than the limit allows", async () => {
    const WINDOW = 2_000;
    const LIMIT = 2;
    await submitTasks(tasks("rq", 6), { ...connection("rq"), attempts: 1 });
    const started = arrivals.length;
    const limited = { providerLimits: { anthropic: { requests: LIMIT } }, providerLimitWindowMs: WINDOW };
    await Promise.all([worker("rq", limited), worker("rq", limited)]);
    expect(await fleetStatus(connection("rq"))).toMatchObject({ total: 6, completed: 6 });
    const times = arrivals.slice(started).map((a) => a.at);
    expect(times).toHaveLength(12);
    // Fixed windows hold at most LIMIT each, so any stretch of one window at most twice that
    // (the sliding estimate keeps it nearer LIMIT); 12 requests take at least 4 windows.
    for (const t of times)
      expect(times.filter((u) => u >= t && u < t + WINDOW).length).toBeLessThanOrEqual(2 * LIMIT);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual((12 / LIMIT - 2) * WINDOW);
  }, 120_000);

  it("counts the tokens answers report, streamed or not, and holds a request while they are spent", async () => {
    const WINDOW = 1_500;
    const env = workerEnv();
    const answers: ProxiedAnswer[] = [];
    const proxy = await startProviderProxy({
      provider: "anthropic",
      env,
      redis: client,
      limit: { tokens: 100 },
      windowMs: WINDOW,
      onAnswer: (a) => answers.push(a),
    });
    try {
      const base = proxy.agentEnv.ANTHROPIC_BASE_URL as string;
      expect(proxy.agentEnv.ANTHROPIC_API_KEY).toBe(KEY_PLACEHOLDER);
      // Let a fresh window begin, so the two requests below fall in one.
      await new Promise((r) => setTimeout(r, WINDOW - (Date.now() % WINDOW) + 20));
      const post = (path: string, body: unknown) =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": KEY_PLACEHOLDER },
          body: JSON.stringify(body),
        });
      const plain = await post("/v1/plain", {});
      expect(plain.status).toBe(200);
      expect(await plain.json()).toMatchObject({ usage: { input_tokens: 70 } });
      await new Promise((r) => setTimeout(r, 50));
      expect(await windowUse(client, "anthropic", WINDOW)).toEqual({ requests: 1, tokens: 75 });
      // 75 < 100: the next starts at once; its streamed answer reports 120 in + 30 out.
      const sent = Date.now();
      const streamed = await post("/v1/messages", {
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "task:tok-0 hello" }],
      });
      expect(streamed.headers.get("content-type")).toContain("event-stream");
      expect(await streamed.text()).toContain("message_stop");
      expect(Date.now() - sent).toBeLessThan(WINDOW);
      await new Promise((r) => setTimeout(r, 50));
      expect((await windowUse(client, "anthropic", WINDOW)).tokens).toBe(75 + 150);
      // 225 spent of 100: held until the window's share has decayed below the limit.
      const held = Date.now();
      const third = await post("/v1/plain", {});
      expect(third.status).toBe(200);
      expect(Date.now() - held).toBeGreaterThanOrEqual(WINDOW / 2);
      // Each answer is reported with the time the limit held its request and its tokens.
      await new Promise((r) => setTimeout(r, 50));
      expect(answers.map((a) => [a.status, a.tokens])).toEqual([
        [200, 75],
        [200, 150],
        [200, 75],
      ]);
      expect(answers[0]?.heldMs).toBeLessThan(WINDOW / 2);
      expect(answers[2]?.heldMs).toBeGreaterThanOrEqual(WINDOW / 2 - 100);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("while Redis does not answer, a request is held, then answered 429 for the agent to retry", async () => {
    // The worker's client waits for Redis to come back rather than failing commands.
    const waiting = new Redis(redis.url, { maxRetriesPerRequest: null });
    waiting.on("error", () => undefined);
    const proxy = await startProviderProxy({
      provider: "anthropic",
      env: workerEnv(),
      redis: waiting,
      limit: { requests: 100 },
      maxWaitMs: 1_500,
    });
    const before = provider.requests.length;
    await redis.stop();
    try {
      const sent = Date.now();
      const answer = await fetch(`${proxy.agentEnv.ANTHROPIC_BASE_URL}/v1/plain`, {
        method: "POST",
        body: "{}",
      });
      expect(answer.status).toBe(429);
      expect(answer.headers.get("retry-after")).toBe("10");
      expect(Date.now() - sent).toBeGreaterThanOrEqual(1_400);
      expect(provider.requests.length).toBe(before);
    } finally {
      await redis.start();
      await proxy.close();
      waiting.disconnect();
    }
  }, 30_000);

  it("tokens an answer reports while Redis is down are reported as uncounted, not dropped without a word", async () => {
    // Commands fail at once while Redis is away, as the token count at the answer's end does.
    const failing = new Redis(redis.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    failing.on("error", () => undefined);
    if (failing.status !== "ready") await new Promise((r) => failing.once("ready", r));
    const uncounted: { provider: string; tokens: number }[] = [];
    const proxy = await startProviderProxy({
      provider: "anthropic",
      env: workerEnv(),
      redis: failing,
      limit: { tokens: 1_000 },
      onUncounted: (p, tokens) => uncounted.push({ provider: p, tokens }),
    });
    const before = provider.requests.length;
    try {
      const answer = fetch(`${proxy.agentEnv.ANTHROPIC_BASE_URL}/v1/slow`, { method: "POST", body: "{}" });
      // Redis goes away once the request has reached the provider, before its answer ends.
      while (provider.requests.length === before) await new Promise((r) => setTimeout(r, 10));
      await redis.stop();
      const reply = await answer;
      expect(reply.status).toBe(200);
      expect(await reply.json()).toMatchObject({ usage: { input_tokens: 40 } });
      for (let i = 0; i < 100 && uncounted.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(uncounted).toEqual([{ provider: "anthropic", tokens: 42 }]);
    } finally {
      await redis.start();
      await proxy.close();
      failing.disconnect();
    }
  }, 30_000);

  it("a worker's /metrics counts the requests its proxies passed, the time they were held and their tokens", async () => {
    await submitTasks(tasks("met", 2), { ...connection("met"), attempts: 1 });
    const stop = new AbortController();
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const running = worker("met", {
      exitWhenIdle: false,
      signal: stop.signal,
      metricsPort: port,
      providerLimits: { anthropic: { requests: 100 } },
    });
    try {
      for (let i = 0; i < 600 && (await fleetStatus(connection("met"))).completed < 2; i++)
        await new Promise((r) => setTimeout(r, 100));
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      // Two tasks of two model requests each, 150 tokens an answer.
      expect(text).toContain('attractor_fleet_provider_requests_total{queue="met",provider="anthropic"} 4');
      expect(text).toContain('attractor_fleet_provider_tokens_total{queue="met",provider="anthropic"} 600');
      expect(text).toContain(
        'attractor_fleet_provider_uncounted_tokens_total{queue="met",provider="anthropic"} 0',
      );
      expect(text).toMatch(
        /attractor_fleet_provider_held_seconds_total\{queue="met",provider="anthropic"\} [\d.]+/,
      );
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);

  it("the agent holds a placeholder, never the key; a worker without the key refuses the limit", async () => {
    await submitTasks(tasks("key", 1), { ...connection("key"), attempts: 1 });
    await worker("key", { providerLimits: { anthropic: {} } });
    const [result] = await readResults(connection("key"));
    expect(result?.status, result?.error ?? "").toBe("completed");
    // The agent process (and so every command it starts) has the placeholder and the proxy's URL.
    const agent = agentEnvs[0] ?? "";
    expect(agentEnvs.length).toBeGreaterThan(0);
    expect(agent.split("\0")).toContain(`ANTHROPIC_API_KEY=${KEY_PLACEHOLDER}`);
    expect(agent).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+/);
    expect(agentEnvs.join("")).not.toContain(KEY);
    const noKey = { ...workerEnv(), ANTHROPIC_API_KEY: "" };
    await expect(
      runWorker({ ...connection("key"), env: noKey, command: ["true"], providerLimits: { anthropic: {} } }),
    ).rejects.toBeInstanceOf(ProviderLimitError);
    await expect(
      runWorker({ ...connection("key"), command: ["true"], providerLimits: { "no-such-provider": {} } }),
    ).rejects.toThrow(/unknown provider/);
    // The command says so with exit 2, and refuses a malformed limit the same way.
    const cli = (spec: string, env: Record<string, string>) =>
      runCliProcess(["fleet", "worker", "--redis", redis.url, "--queue", "key", "--provider-limit", spec], {
        cwd: root,
        env,
      });
    const refused = await cli("anthropic:requests=10", noKey);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("provider limit for anthropic: no key in the worker's environment");
    const malformed = await cli("anthropic:requests=ten", workerEnv());
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("expected requests=N or tokens=N");
  }, 60_000);

  it("a provider's 429 through the proxy pauses the queue without failing the task", async () => {
    // More 429s than the agent retries on its own: attempts end rate-limited (not counted) and
    // the task is taken again after the queue's pause, until the provider answers.
    reject429.set("rl-0", 12);
    await submitTasks(tasks("rl", 2), { ...connection("rl"), attempts: 1 });
    const statuses: number[] = [];
    await worker("rl", {
      providerLimits: { anthropic: { requests: 100 } },
      rateLimitBackoffMs: 500,
      onOutcome: (_task, outcome) => {
        if ("exit_code" in outcome && outcome.error?.status_code !== undefined)
          statuses.push(outcome.error.status_code);
      },
    });
    expect(statuses).toContain(429);
    const results = await readResults(connection("rl"));
    expect(results.map((r) => [r.id, r.status, r.attempts])).toEqual([
      ["rl-0", "completed", 1],
      ["rl-1", "completed", 1],
    ]);
  }, 90_000);
});
