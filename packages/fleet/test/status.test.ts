// `fleet status` from the counts each run keeps, against a real redis-server and a real worker
// whose agent is a small script (what `attractor -p --output-format json` prints): the counts
// agree with the tasks, status sends the same handful of commands whatever the number of finished
// tasks, and a lost task is still found (and the exit code says so) while the counts say the rest.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, requireBuiltCli, runCliProcess } from "@attractor/cli/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cancelTasks,
  cleanFleet,
  type FleetTask,
  fleetStatus,
  runWorker,
  submitTasks,
} from "../src/index.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";

const skip = redisUnavailable();
let redis: TestRedis;
let root: string;
let repo: string;
let agent: string;
let env: Record<string, string>;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  redis = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-status-"));
  repo = await createRepo(root);
  // The agent: changes a file and prints attractor's JSON result; a prompt saying "fail" fails.
  agent = join(root, "agent.sh");
  const ok = JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: "done",
    num_turns: 1,
  });
  const bad = JSON.stringify({
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    result: "",
  });
  await writeFile(
    agent,
    [
      "#!/bin/sh",
      'echo "$2" > changed.txt',
      `case "$2" in *fail*) echo '${bad}'; exit 1;; esac`,
      `echo '${ok}'`,
    ].join("\n"),
  );
  env = cleanEnv(root, {});
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const redisCli = (...args: string[]) =>
  execFileSync("redis-cli", ["-p", String(redis.port), ...args], { encoding: "utf8" }).trim();

const tasks = (prefix: string, n: number, prompt = "change a file"): FleetTask[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, repo, prompt: `${prompt} ${prefix}-${i}` }));

const connection = (queue: string) => ({ redis: redis.url, queue, env, store: join(root, "store") });

const work = (queue: string) =>
  runWorker({
    ...connection(queue),
    command: ["/bin/sh", agent],
    concurrency: 4,
    exitWhenIdle: true,
    workRoot: join(root, "work"),
  });

/** The Redis commands a call sends, each as its name and number of arguments (from SLOWLOG, logging every command). */
async function commandsOf(call: () => Promise<unknown>): Promise<string[]> {
  const client = new Redis(redis.url);
  try {
    await client.config("SET", "slowlog-log-slower-than", "0");
    await client.config("SET", "slowlog-max-len", "1000");
    await client.slowlog("RESET");
    await call();
    const log = (await client.slowlog("GET", 1000)) as [number, number, number, string[]][];
    return log
      .map(([, , , args]) => {
        // Beyond 32 arguments SLOWLOG keeps 31 and "... (N more arguments)".
        const more = /^\.\.\. \((\d+) more arguments\)$/.exec(args.at(-1) ?? "");
        return `${args[0]?.toLowerCase()}/${more ? args.length - 1 + Number(more[1]) : args.length}`;
      })
      .filter((c) => !c.startsWith("slowlog/") && !c.startsWith("config/"))
      .sort();
  } finally {
    await client.config("SET", "slowlog-log-slower-than", "10000");
    client.disconnect();
  }
}

describe.skipIf(skip)("fleet status from the runs' counts", () => {
  it("agrees with the tasks and sends the same commands for 4 finished tasks as for 60", async () => {
    await submitTasks([...tasks("small", 3), ...tasks("small-bad", 1, "fail")], {
      ...connection("small"),
      attempts: 1,
    });
    await work("small");
    await submitTasks([...tasks("big", 59), ...tasks("big-bad", 1, "fail")], {
      ...connection("big"),
      attempts: 1,
    });
    await work("big");

    const small = await fleetStatus(connection("small"));
    expect(small).toMatchObject({ total: 4, completed: 3, failed: 1, pending: 0, missing: 0 });
    const big = await fleetStatus(connection("big"));
    expect(big).toMatchObject({ total: 60, completed: 59, failed: 1, cancelled: 0, pending: 0, missing: 0 });
    expect(big.failures.map((f) => f.id)).toEqual(["big-bad-0"]);
    expect(big.failures[0]?.error).toContain("error_during_execution");
    expect(big.etaSeconds).toBe(0);

    const forSmall = await commandsOf(() => fleetStatus(connection("small")));
    const forBig = await commandsOf(() => fleetStatus(connection("big")));
    expect(forBig).toEqual(forSmall);
    // Never a field per task: a few commands, none naming 60 tasks.
    expect(forBig.length).toBeLessThan(20);
    expect(forBig.every((c) => Number(c.split("/")[1]) < 10)).toBe(true);
  }, 120_000);

  it("a queued task whose job Redis lost is reported lost (exit 1) beside the counted ones", async () => {
    await submitTasks(tasks("lose", 3), { ...connection("lose"), attempts: 1 });
    // No worker: the three wait. One of them disappears from Redis.
    redisCli("DEL", "bull:lose:lose-1");
    redisCli("ZREM", "bull:lose:prioritized", "lose-1");
    const status = await fleetStatus(connection("lose"));
    expect(status).toMatchObject({ total: 3, pending: 2, missing: 1, missingIds: ["lose-1"] });
    const cli = await runCliProcess(
      ["fleet", "status", "--redis", redis.url, "--queue", "lose", "--store", join(root, "store")],
      { cwd: root, env },
    );
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain("1 LOST");
    expect(cli.stdout).toContain("lose-1");
    await work("lose");
    expect(await fleetStatus(connection("lose"))).toMatchObject({ completed: 2, pending: 0, missing: 1 });
  }, 60_000);

  it("counts that do not add up are not trusted: every task is read instead", async () => {
    await submitTasks(tasks("skew", 2), { ...connection("skew"), attempts: 1 });
    await work("skew");
    const run = (await fleetStatus(connection("skew"))).run as string;
    redisCli("HINCRBY", `attractor-fleet:skew:run:${run}:counts`, "completed", "5");
    expect(await fleetStatus(connection("skew"))).toMatchObject({ total: 2, completed: 2, missing: 0 });
    // A run whose counts are gone (recorded before they were kept) is read task by task too.
    redisCli("DEL", `attractor-fleet:skew:run:${run}:counts`);
    expect(await fleetStatus(connection("skew"))).toMatchObject({ total: 2, completed: 2, runInRedis: true });
  }, 60_000);

  it("a task listed by two runs counts in both; cancelling and cleaning keep the counts true", async () => {
    const first = await submitTasks(tasks("two", 3), { ...connection("two"), runId: "run-1", attempts: 1 });
    // Resubmitted while still queued (two-0..2) and with one new task (two-3).
    const second = await submitTasks(tasks("two", 4), { ...connection("two"), runId: "run-2", attempts: 1 });
    expect(first.added).toBe(3);
    expect(second).toMatchObject({ added: 1, existing: 3 });
    const cancelled = await cancelTasks({ kind: "tasks", ids: ["two-2"] }, connection("two"));
    expect(cancelled.removed).toEqual(["two-2"]);
    await work("two");
    expect(await fleetStatus({ ...connection("two"), run: "run-1" })).toMatchObject({
      total: 3,
      completed: 2,
      cancelled: 1,
      pending: 0,
    });
    expect(await fleetStatus({ ...connection("two"), run: "run-2" })).toMatchObject({
      total: 4,
      completed: 3,
      cancelled: 1,
      pending: 0,
    });
    // A third run of finished tasks is counted at once.
    await submitTasks(tasks("two", 2), { ...connection("two"), runId: "run-3" });
    expect(await fleetStatus(connection("two"))).toMatchObject({ run: "run-3", total: 2, completed: 2 });
    // Cleaning run-1 keeps what run-2 and run-3 list; cleaning run-3 then moves "latest" to run-2.
    expect(await cleanFleet({ run: "run-1" }, connection("two"))).toMatchObject({
      runs: ["run-1"],
      tasks: 0,
    });
    await cleanFleet({ run: "run-3" }, connection("two"));
    expect(await fleetStatus(connection("two"))).toMatchObject({
      run: "run-2",
      total: 4,
      completed: 3,
      cancelled: 1,
      missing: 0,
    });
  }, 60_000);
});
