// Control of a running fleet against a real redis-server and real attractor processes: tasks
// cancelled while waiting or running (the agent's processes end, the workspace goes), agents that
// end with a worker killed outright, stale workspaces removed at start, re-runs counted, a worker
// policy a task cannot exceed, retention (results kept in the store while Redis forgets),
// priorities and the metrics endpoint.
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH, cleanEnv, requireBuiltCli, runCliProcess, startCli } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FleetTask, fleetStatus, runWorker } from "../src/index.js";
import { agentProcesses } from "./support/processes.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const skip = redisUnavailable();
let redis: TestRedis;
let root: string;
let repo: string;
let model: TaskModel;
let slow: TaskModel;
let env: Record<string, string>;
let slowEnv: Record<string, string>;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  redis = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-ctl-"));
  repo = await createRepo(root);
  model = await startTaskModel();
  // Tasks whose prompt says "slow" wait a minute for their first answer: caught mid-run.
  slow = await startTaskModel({ delayMs: 60_000 });
  env = cleanEnv(root, model.env());
  slowEnv = cleanEnv(root, slow.env());
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await model?.close();
  await slow?.close();
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const taskFile = async (
  name: string,
  ids: string[],
  extra: (id: string) => Partial<FleetTask> = () => ({}),
) => {
  const file = join(root, `${name}.jsonl`);
  const lines = ids.map((id) =>
    JSON.stringify({ id, repo, prompt: `task:${id} write the file`, provider: "anthropic", ...extra(id) }),
  );
  await writeFile(file, lines.join("\n"));
  return file;
};

const q = (queue: string) => ["--redis", redis.url, "--queue", queue];
const cli = (args: string[], e = env) => runCliProcess(["fleet", ...args], { cwd: root, env: e });
const rows = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
};

describe.skipIf(skip)("cancellation", () => {
  it("a running task's agent and workspace end; a waiting one is taken off; neither is retried", async () => {
    const ids = ["cx-0", "cx-1"];
    expect((await cli(["submit", await taskFile("cancel", ids), ...q("cancel")], slowEnv)).code).toBe(0);
    const work = join(root, "work-cancel");
    const worker = startCli(
      ["fleet", "worker", "--concurrency", "1", "--exit-when-idle", "--work-dir", work, ...q("cancel")],
      { cwd: root, env: slowEnv },
    );
    await until(() => slow.server.requests.length > 0, "the first task to reach the model");
    const running = agentProcesses("task:cx-0");
    expect(running).not.toHaveLength(0);
    const waiting = await cli(["cancel", "cx-1", ...q("cancel")], slowEnv);
    expect(waiting.stdout).toContain("cancelled 1 waiting, stopping 0 running");
    const stop = await cli(["cancel", "cx-0", ...q("cancel")], slowEnv);
    expect(stop.stdout).toContain("cancelled 0 waiting, stopping 1 running");
    const end = await worker.done;
    expect(end.code, end.stderr).toBe(0);
    expect(agentProcesses("task:cx-0")).toEqual([]);
    expect(await readdir(work)).toEqual([]);
    const results = await cli(["results", "--json", ...q("cancel")], slowEnv);
    expect(results.code).toBe(1);
    expect(rows(results.stdout).map((r) => [r.id, r.status, r.attempts])).toEqual([
      ["cx-0", "cancelled", 1],
      ["cx-1", "cancelled", 0],
    ]);
    // Only one model request: the cancelled task was not run again.
    expect(slow.requestsFor("cx-0")).toBe(1);
  }, 90_000);

  it("a whole run is cancelled with --run", async () => {
    expect(
      (await cli(["submit", await taskFile("cancel-run", ["cr-0", "cr-1", "cr-2"]), ...q("crun")])).code,
    ).toBe(0);
    const r = await cli(["cancel", "--run", ...q("crun")]);
    expect(r.stdout).toContain("cancelled 3 waiting");
    const status = await cli(["status", "--json", ...q("crun")]);
    expect(JSON.parse(status.stdout)).toMatchObject({ total: 3, cancelled: 3, pending: 0, missing: 0 });
  }, 60_000);
});

describe.skipIf(skip)("a worker killed outright", () => {
  it("takes its agent with it; the next worker removes the stale workspace and the re-run counts as attempt 2", async () => {
    expect((await cli(["submit", await taskFile("die", ["die-0"]), ...q("die")], slowEnv)).code).toBe(0);
    const work = join(root, "work-die");
    const first = startCli(["fleet", "worker", "--lock-duration", "2000", "--work-dir", work, ...q("die")], {
      cwd: root,
      env: slowEnv,
    });
    await until(() => slow.requestsFor("die-0") > 0, "the task to reach the model");
    expect(agentProcesses("task:die-0")).not.toHaveLength(0);
    first.child.kill("SIGKILL");
    await first.done;
    await until(() => agentProcesses("task:die-0").length === 0, "the agent to end with its worker");
    expect(await readdir(work)).toHaveLength(1);
    // The re-run gets a fast model.
    const second = await cli(
      ["worker", "--exit-when-idle", "--lock-duration", "2000", "--work-dir", work, ...q("die")],
      env,
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("removed 1 workspace left by a dead worker");
    expect(await readdir(work)).toEqual([]);
    const results = rows((await cli(["results", "--json", ...q("die")])).stdout);
    expect(results).toEqual([expect.objectContaining({ id: "die-0", status: "completed", attempts: 2 })]);
  }, 90_000);
});

describe.skipIf(skip)("a worker policy", () => {
  it("refuses a task asking for more than the worker allows, with the reason; allowed ones run", async () => {
    const file = await taskFile("policy", ["p-yolo", "p-bypass", "p-edit", "p-default", "p-repo"], (id) =>
      id === "p-yolo"
        ? { mode: "yolo" }
        : id === "p-bypass"
          ? { mode: "bypassPermissions" }
          : id === "p-edit"
            ? { mode: "acceptEdits" }
            : id === "p-repo"
              ? { repo: join(root, "elsewhere") }
              : {},
    );
    expect((await cli(["submit", file, ...q("policy")])).code).toBe(0);
    const worker = await cli([
      "worker",
      "--exit-when-idle",
      "--allow-modes",
      "auto-edit,plan",
      "--allow-repos",
      `${repo}`,
      "--work-dir",
      join(root, "work-policy"),
      ...q("policy"),
    ]);
    expect(worker.code, worker.stderr).toBe(0);
    const results = await cli(["results", "--json", ...q("policy")]);
    expect(results.code).toBe(1);
    const byId = Object.fromEntries(rows(results.stdout).map((r) => [r.id, r]));
    expect(byId["p-yolo"]).toMatchObject({ status: "failed", attempts: 1 });
    expect(byId["p-yolo"].error).toBe('refused by the worker\'s policy: mode "yolo" is not allowed here');
    expect(byId["p-bypass"].error).toContain('mode "bypassPermissions" is not allowed');
    expect(byId["p-repo"].error).toContain(`repo "${join(root, "elsewhere")}" is not allowed`);
    expect(byId["p-edit"]).toMatchObject({ status: "completed", result: "done p-edit" });
    expect(byId["p-default"]).toMatchObject({ status: "completed", result: "done p-default" });
    // A refused task never reached the model.
    expect(model.requestsFor("p-yolo")).toBe(0);
  }, 90_000);
});

describe.skipIf(skip)("results out of Redis", () => {
  it("finished jobs beyond --keep-finished leave Redis; results, patches and transcripts stay; clean removes a run", async () => {
    const ids = ["k-0", "k-1", "k-2", "k-3", "k-4"];
    const submit = await cli([
      "submit",
      await taskFile("keep", ids),
      "--keep-finished",
      "2",
      "--run",
      "run-keep",
      ...q("keep"),
    ]);
    expect(submit.code, submit.stderr).toBe(0);
    const worker = await cli([
      "worker",
      "--exit-when-idle",
      "--work-dir",
      join(root, "work-keep"),
      ...q("keep"),
    ]);
    expect(worker.code, worker.stderr).toBe(0);
    const jobKeys = execFileSync(
      "redis-cli",
      ["-p", String(redis.port), "--scan", "--pattern", "bull:keep:k-*"],
      {
        encoding: "utf8",
      },
    )
      .trim()
      .split("\n")
      .filter(Boolean);
    expect(jobKeys.length).toBeLessThanOrEqual(2);
    const results = rows((await cli(["results", "--json", ...q("keep")])).stdout);
    expect(results.map((r) => r.status)).toEqual(Array(5).fill("completed"));
    for (const r of results) expect(r.patch).toContain(`+${r.id}`);
    const status = await cli(["status", "--json", ...q("keep")]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ total: 5, completed: 5, missing: 0 });
    const transcript = await cli(["transcript", "k-3", ...q("keep")]);
    expect(transcript.code).toBe(0);
    expect(transcript.stdout).toContain("task:k-3");
    // A resubmit of finished tasks whose jobs Redis dropped runs nothing again.
    const again = await cli(["submit", await taskFile("keep", ids), "--run", "run-keep-2", ...q("keep")]);
    expect(again.stdout).toContain("submitted 0 tasks");
    // The later run lists the same tasks: cleaning the first keeps them (the later run would
    // otherwise report them lost); cleaning the later one removes them.
    const clean = await cli(["clean", "--run", "run-keep", ...q("keep")]);
    expect(clean.stdout, clean.stderr).toContain("removed 1 run (0 tasks)");
    expect((await cli(["transcript", "k-3", ...q("keep")])).code).toBe(0);
    expect(JSON.parse((await cli(["status", "--json", ...q("keep")])).stdout)).toMatchObject({
      run: "run-keep-2",
      completed: 5,
      missing: 0,
    });
    const cleanLater = await cli(["clean", "--run", "run-keep-2", ...q("keep")]);
    expect(cleanLater.stdout, cleanLater.stderr).toContain("removed 1 run (5 tasks)");
    const gone = await cli(["transcript", "k-3", ...q("keep")]);
    expect(gone.code).toBe(2);
    expect(await readdir(join(root, "attractor", "fleet", "keep", "tasks"))).toEqual([]);
  }, 90_000);
});

describe.skipIf(skip)("priorities and metrics", () => {
  it("a worker takes the most urgent task first and counts outcomes, tokens and cost on /metrics", async () => {
    const queue = "prio";
    const file = await taskFile("prio", ["pr-low", "pr-none", "pr-high"], (id) =>
      id === "pr-low" ? { priority: 5 } : id === "pr-high" ? { priority: 1 } : {},
    );
    expect((await cli(["submit", file, ...q(queue)])).code).toBe(0);
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const stop = new AbortController();
    const store = join(root, "attractor", "fleet");
    const worker = runWorker({
      redis: redis.url,
      queue,
      store,
      env,
      command: [process.execPath, CLI_PATH],
      workRoot: join(root, "work-prio"),
      metricsPort: port,
      signal: stop.signal,
    });
    await until(
      async () => (await fleetStatus({ redis: redis.url, queue, store })).completed === 3,
      "three tasks done",
    );
    const firsts = model.server.requests
      .map((r) => /task:(pr-\S+)/.exec(JSON.stringify(r.body))?.[1])
      .filter((id, i, all): id is string => id !== undefined && all.indexOf(id) === i);
    // A task without a priority gets 100: after those that name a smaller one.
    expect(firsts).toEqual(["pr-high", "pr-low", "pr-none"]);
    // The outcome is recorded just before BullMQ marks the job completed: wait for both.
    let metrics = "";
    await until(async () => {
      metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return metrics.includes('bullmq_job_count{queue="prio", state="completed"} 3');
    }, "BullMQ to count the third task completed");
    expect(metrics).toContain('attractor_fleet_attempts_total{queue="prio",outcome="completed"} 3');
    expect(metrics).toMatch(/attractor_fleet_tokens_total\{queue="prio",kind="input"\} [1-9]/);
    expect(metrics).toMatch(/attractor_fleet_cost_usd_total\{queue="prio"\} 0\.\d*[1-9]/);
    expect(metrics).toContain('bullmq_job_count{queue="prio", state="completed"} 3');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    stop.abort();
    await worker;
  }, 90_000);
});
