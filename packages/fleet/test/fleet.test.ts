// Fleets against a real redis-server and real attractor processes: tasks submitted from JSONL,
// run by several worker processes, one killed with SIGKILL and Redis restarted mid-run, and every
// task completed exactly once; failures, 429s and SIGTERM as BullMQ's reliability promises.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH, cleanEnv, requireBuiltCli, runCliProcess, startCli } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FleetTask,
  fleetStatus,
  readResults,
  readTranscript,
  runWorker,
  submitTasks,
} from "../src/index.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const skip = redisUnavailable();
let redis: TestRedis;
let root: string;
let repo: string;
let model: TaskModel;
let env: Record<string, string>;
/** The result store every worker and reader here shares (the CLI's default under its attractor home). */
let store: string;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  redis = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-"));
  repo = await createRepo(root);
  model = await startTaskModel();
  env = cleanEnv(root, model.env());
  store = join(root, "attractor", "fleet");
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await model?.close();
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const tasks = (prefix: string, n: number, extra: Partial<FleetTask> = {}): FleetTask[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${String(i).padStart(3, "0")}`,
    repo,
    prompt: `task:${prefix}-${String(i).padStart(3, "0")} write the file`,
    provider: "anthropic",
    ...extra,
  }));

const fleetArgs = (queue: string) => ["--redis", redis.url, "--queue", queue];

describe.skipIf(skip)("the fleet library", () => {
  it("runs submitted tasks once each in fresh workspaces and stores result, patch, usage and transcript", async () => {
    const queue = "lib";
    const list = tasks("lib", 12);
    expect(await submitTasks(list, { redis: redis.url, queue, store })).toMatchObject({
      added: 12,
      existing: 0,
    });
    // Submitting again changes nothing.
    expect(await submitTasks(list, { redis: redis.url, queue, store })).toMatchObject({
      added: 0,
      existing: 12,
    });
    const { attempts } = await runWorker({
      redis: redis.url,
      queue,
      store,
      command: [process.execPath, CLI_PATH],
      env,
      concurrency: 4,
      exitWhenIdle: true,
      workRoot: join(root, "work-lib"),
    });
    expect(attempts).toBe(12);
    const results = await readResults({ redis: redis.url, queue, store });
    expect(results.map((r) => r.id)).toEqual(list.map((t) => t.id));
    for (const r of results) {
      expect(r).toMatchObject({
        status: "completed",
        attempts: 1,
        result: `done ${r.id}`,
        turns: 2,
        error: null,
      });
      expect(r.patch).toContain(`+++ b/out/${r.id}.txt`);
      expect(r.patch).toContain(`+${r.id}`);
      expect(r.usage?.input_tokens).toBeGreaterThan(0);
      expect(r.cost_usd).toBeGreaterThan(0);
    }
    const transcript = await readTranscript("lib-000", { redis: redis.url, queue, store });
    expect(transcript).toContain("task:lib-000");
    // The patch applies to the repository as it was.
    const check = join(root, "apply-check");
    execFileSync("git", ["clone", "-q", repo, check]);
    await writeFile(join(root, "lib-000.patch"), results[0]?.patch ?? "");
    execFileSync("git", ["apply", join(root, "lib-000.patch")], { cwd: check });
    expect(await fleetStatus({ redis: redis.url, queue, store })).toMatchObject({
      total: 12,
      completed: 12,
      failed: 0,
      etaSeconds: 0,
    });
  }, 120_000);

  it("a task that fails every attempt ends as failed with its error; a 429 pauses the queue without failing", async () => {
    const queue = "faults";
    model.rejectWith429("ratelimited", 3);
    await submitTasks(
      [
        { id: "broken", repo: join(root, "no-such-repo"), prompt: "task:broken x" },
        { id: "limited", repo, prompt: "task:limited ratelimited", provider: "anthropic" },
      ],
      { redis: redis.url, queue, store, attempts: 2 },
    );
    await runWorker({
      redis: redis.url,
      queue,
      store,
      command: [process.execPath, CLI_PATH],
      env,
      concurrency: 2,
      exitWhenIdle: true,
      rateLimitBackoffMs: 1_000,
      workRoot: join(root, "work-faults"),
    });
    const results = await readResults({ redis: redis.url, queue, store });
    expect(results.find((r) => r.id === "broken")).toMatchObject({ status: "failed", attempts: 2 });
    expect(results.find((r) => r.id === "broken")?.error).toContain("cannot prepare");
    expect(results.find((r) => r.id === "limited")).toMatchObject({
      status: "completed",
      result: "done limited",
    });
    const status = await fleetStatus({ redis: redis.url, queue, store });
    expect(status.failures).toEqual([expect.objectContaining({ id: "broken" })]);
  }, 120_000);
});

describe.skipIf(skip)("attractor fleet, several worker processes", () => {
  it("200 tasks finish exactly once with a worker killed by SIGKILL and Redis restarted mid-run", async () => {
    const queue = "big";
    const file = join(root, "tasks.jsonl");
    await writeFile(
      file,
      tasks("big", 200)
        .map((t) => JSON.stringify(t))
        .join("\n"),
    );
    const submitted = await runCliProcess(["fleet", "submit", file, ...fleetArgs(queue)], { cwd: root, env });
    expect(submitted.stdout, submitted.stderr).toMatch(/^submitted 200 tasks as run run-\S+\n$/);
    const worker = () =>
      startCli(
        [
          "fleet",
          "worker",
          "--concurrency",
          "3",
          "--exit-when-idle",
          "--lock-duration",
          "4000",
          "--work-dir",
          join(root, "work-big"),
          ...fleetArgs(queue),
        ],
        { cwd: root, env },
      );
    const workers = [worker(), worker(), worker()];
    const done = () => fleetStatus({ redis: redis.url, queue, store }).then((s) => s.completed);
    while ((await done()) < 20) await new Promise((r) => setTimeout(r, 200));
    workers[0]?.child.kill("SIGKILL");
    while ((await done()) < 80) await new Promise((r) => setTimeout(r, 200));
    await redis.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    await redis.start();
    const ends = await Promise.all(workers.slice(1).map((w) => w.done));
    for (const end of ends) expect(end.code, end.stderr).toBe(0);

    const listed = await runCliProcess(
      ["fleet", "results", "--json", "--out", join(root, "out"), ...fleetArgs(queue)],
      { cwd: root, env },
    );
    expect(listed.code, listed.stderr).toBe(0);
    const results = listed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(results).toHaveLength(200);
    expect(new Set(results.map((r) => r.id)).size).toBe(200);
    for (const r of results) {
      expect(r.status).toBe("completed");
      expect(r.result).toBe(`done ${r.id}`);
      expect(Object.keys(r).sort()).toEqual(
        [
          "attempts",
          "branch",
          "cost_usd",
          "duration_ms",
          "error",
          "id",
          "isolation",
          "patch",
          "pull_request",
          "result",
          "run",
          "session_id",
          "status",
          "turns",
          "usage",
        ].sort(),
      );
    }
    const status = await runCliProcess(["fleet", "status", ...fleetArgs(queue)], { cwd: root, env });
    expect(status.stdout).toContain("200/200 finished: 200 completed, 0 failed");
  }, 300_000);

  it("SIGTERM stops taking tasks and finishes the running one", async () => {
    const queue = "term";
    const slow = await startTaskModel({ delayMs: 2_000 });
    try {
      const slowEnv = cleanEnv(root, slow.env());
      await submitTasks(tasks("term", 3), { redis: redis.url, queue, store });
      const worker = startCli(
        ["fleet", "worker", "--concurrency", "1", "--work-dir", join(root, "work-term"), ...fleetArgs(queue)],
        {
          cwd: root,
          env: slowEnv,
        },
      );
      while (slow.server.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
      worker.child.kill("SIGTERM");
      const end = await worker.done;
      expect(end.code, end.stderr).toBe(0);
      const results = await readResults({ redis: redis.url, queue, store });
      expect(results.filter((r) => r.status === "completed").map((r) => r.id)).toEqual(["term-000"]);
      expect(results.filter((r) => r.status === "waiting")).toHaveLength(2);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it("a bad task file is refused line by line and nothing is submitted", async () => {
    const file = join(root, "bad.jsonl");
    await writeFile(
      file,
      [
        '{"id":"a","repo":".","prompt":"x"}',
        "{oops",
        '{"id":"a","repo":".","prompt":"y"}',
        '{"id":"b","prompt":"z"}',
      ].join("\n"),
    );
    const r = await runCliProcess(["fleet", "submit", file, ...fleetArgs("bad")], { cwd: root, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("bad.jsonl:2: not JSON");
    expect(r.stderr).toContain('bad.jsonl:3: duplicate id "a"');
    expect(r.stderr).toContain('bad.jsonl:4: "repo" is required');
    expect((await fleetStatus({ redis: redis.url, queue: "bad", store })).total).toBe(0);
  });
});
