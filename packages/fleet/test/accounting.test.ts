// Truthful accounting against real redis-servers and real attractor processes: a Redis that
// would lose tasks is refused unless allowed; when one does lose them (restarted without
// persistence), `status` and `results` name the lost tasks and exit non-zero, results already
// in the result store survive, and a worker whose running task vanished ends it and exits.
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, requireBuiltCli, runCliProcess, startCli } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FleetTask } from "../src/index.js";
import { agentProcesses } from "./support/processes.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const skip = redisUnavailable();
let volatile: TestRedis;
let durable: TestRedis;
let root: string;
let repo: string;
let model: TaskModel;
let env: Record<string, string>;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  volatile = await startRedis({ persist: false });
  durable = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-acct-"));
  repo = await createRepo(root);
  model = await startTaskModel();
  env = cleanEnv(root, model.env());
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await model?.close();
  await volatile?.destroy();
  await durable?.destroy();
  await rm(root, { recursive: true, force: true });
});

const taskFile = async (name: string, prefix: string, n: number, extra: Partial<FleetTask> = {}) => {
  const file = join(root, `${name}.jsonl`);
  const lines = Array.from({ length: n }, (_, i) => {
    const id = `${prefix}-${i}`;
    return JSON.stringify({ id, repo, prompt: `task:${id} write the file`, provider: "anthropic", ...extra });
  });
  await writeFile(file, lines.join("\n"));
  return file;
};

const cli = (args: string[], e = env) => runCliProcess(["fleet", ...args], { cwd: root, env: e });

describe.skipIf(skip)("a Redis that can lose tasks", () => {
  it("is refused by submit and worker unless --allow-volatile-redis", async () => {
    const file = await taskFile("refused", "refused", 2);
    const submit = await cli(["submit", file, "--redis", volatile.url, "--queue", "refused"]);
    expect(submit.code).toBe(1);
    expect(submit.stderr).toContain("does not persist");
    expect(submit.stderr).toContain("--allow-volatile-redis");
    const worker = await cli(["worker", "--exit-when-idle", "--redis", volatile.url, "--queue", "refused"]);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain("does not persist");
    // Nothing was queued by the refused submit.
    const status = await cli([
      "status",
      "--json",
      "--redis",
      volatile.url,
      "--queue",
      "refused",
      "--store",
      join(root, "other-store"),
    ]);
    expect(JSON.parse(status.stdout)).toMatchObject({ run: null, total: 0 });
  }, 60_000);

  it("an evicting Redis is refused even with an append-only file", async () => {
    const file = await taskFile("evicting", "evicting", 1);
    execFileSync("redis-cli", [
      "-p",
      String(durable.port),
      "CONFIG",
      "SET",
      "maxmemory-policy",
      "allkeys-lru",
    ]);
    try {
      const submit = await cli(["submit", file, "--redis", durable.url, "--queue", "evicting"]);
      expect(submit.code).toBe(1);
      expect(submit.stderr).toContain("maxmemory-policy is allkeys-lru");
    } finally {
      execFileSync("redis-cli", [
        "-p",
        String(durable.port),
        "CONFIG",
        "SET",
        "maxmemory-policy",
        "noeviction",
      ]);
    }
    const accepted = await cli(["submit", file, "--redis", durable.url, "--queue", "evicting"]);
    expect(accepted.code, accepted.stderr).toBe(0);
  }, 60_000);

  it("restarted empty: status and results report the lost tasks and exit 1; stored results survive", async () => {
    const args = ["--redis", volatile.url, "--queue", "lossy", "--allow-volatile-redis"];
    const read = ["--redis", volatile.url, "--queue", "lossy"];
    // Run A: submitted and finished before the restart.
    const first = await cli(["submit", await taskFile("a", "a", 3), ...args, "--run", "run-a"]);
    expect(first.code, first.stderr).toBe(0);
    const worker = await cli(["worker", "--exit-when-idle", "--work-dir", join(root, "work-a"), ...args]);
    expect(worker.code, worker.stderr).toBe(0);
    // Run B: submitted, then Redis restarts with nothing.
    const second = await cli(["submit", await taskFile("b", "b", 4), ...args, "--run", "run-b"]);
    expect(second.stdout).toContain("submitted 4 tasks as run run-b");
    await volatile.stop();
    await volatile.start();

    const status = await cli(["status", ...read]);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain("run run-b:");
    expect(status.stdout).toContain("0/4 finished");
    expect(status.stdout).toContain("4 LOST");
    expect(status.stdout).toContain("Redis has no record of this run");
    expect(status.stdout).toContain("b-0, b-1, b-2, b-3");
    const results = await cli(["results", "--json", ...read]);
    expect(results.code).toBe(1);
    expect(results.stderr).toContain("4 tasks of the run are lost");
    const rows = results.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ["b-0", "missing"],
      ["b-1", "missing"],
      ["b-2", "missing"],
      ["b-3", "missing"],
    ]);
    expect(rows[0].error).toContain("lost");

    // Run A's results were in the result store: nothing of it is lost.
    const a = await cli(["results", "--json", "--run", "run-a", ...read]);
    expect(a.code, a.stderr).toBe(0);
    const aRows = a.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(aRows.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(aRows[0].patch).toContain("+++ b/out/a-0.txt");
    const aStatus = await cli(["status", "--run", "run-a", "--json", ...read]);
    expect(aStatus.code).toBe(0);
    expect(JSON.parse(aStatus.stdout)).toMatchObject({
      total: 3,
      completed: 3,
      missing: 0,
      runInRedis: false,
    });
  }, 120_000);

  it("a worker whose running task vanishes with Redis ends the agent and exits when idle", async () => {
    const slow = await startTaskModel({ delayMs: 60_000 });
    const slowEnv = cleanEnv(root, slow.env());
    try {
      const args = ["--redis", volatile.url, "--queue", "vanish", "--allow-volatile-redis"];
      const submit = await cli(["submit", await taskFile("vanish", "vanish", 1), ...args], slowEnv);
      expect(submit.code, submit.stderr).toBe(0);
      const work = join(root, "work-vanish");
      const worker = startCli(
        ["fleet", "worker", "--exit-when-idle", "--lock-duration", "2000", "--work-dir", work, ...args],
        { cwd: root, env: slowEnv },
      );
      while (slow.server.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
      expect(agentProcesses("task:vanish-0")).not.toHaveLength(0);
      await volatile.stop();
      await volatile.start();
      // The lock cannot be renewed (the job is gone): the attempt is ended and the worker, idle, exits.
      const end = await worker.done;
      expect(end.code, end.stderr).toBe(0);
      expect(agentProcesses("task:vanish-0")).toEqual([]);
      expect(await readdir(work)).toEqual([]);
      const status = await cli(["status", "--redis", volatile.url, "--queue", "vanish"], slowEnv);
      expect(status.code).toBe(1);
      expect(status.stdout).toContain("1 LOST");
    } finally {
      await slow.close();
    }
  }, 60_000);

  it("SIGTERM stops an idle worker promptly even while Redis is down", async () => {
    const worker = startCli(
      ["fleet", "worker", "--redis", durable.url, "--queue", "idle", "--work-dir", join(root, "work-idle")],
      { cwd: root, env },
    );
    // Running: its fleet client, queue, worker and blocking connections are all in Redis.
    const clients = () =>
      execFileSync("redis-cli", ["-p", String(durable.port), "CLIENT", "LIST"], { encoding: "utf8" })
        .trim()
        .split("\n").length - 1;
    for (let i = 0; i < 600 && clients() < 4; i++) await new Promise((r) => setTimeout(r, 50));
    expect(clients()).toBeGreaterThanOrEqual(4);
    await durable.stop();
    try {
      await new Promise((r) => setTimeout(r, 500));
      worker.child.kill("SIGTERM");
      const end = await worker.done;
      expect(end.code, end.stderr).toBe(0);
    } finally {
      await durable.start();
    }
  }, 30_000);
});
