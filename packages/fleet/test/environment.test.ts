// Each task's environment, against a real redis-server, real attractor processes and real
// bubblewrap: the agent's commands have no network unless the worker's settings or an allowed
// task say so, a worker-wide setup command runs before the agent (its output in the log, its
// files out of the patch), the operator's settings template applies to every attempt, and a task
// that needs a sandbox is refused, with the reason, where bubblewrap cannot run.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeBubblewrap } from "@attractor/agent";
import { cleanEnv, requireBuiltCli, runCliProcess } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FleetTask } from "../src/index.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const skip = redisUnavailable();
/** The network interfaces of the reading process's network namespace (/sys would show the host's). */
const INTERFACES = "sed -n 's/^ *\\([^:]*\\):.*/\\1/p' /proc/net/dev | sort";
const sandbox = await probeBubblewrap();
let redis: TestRedis;
let root: string;
let repo: string;
let model: TaskModel;
let env: Record<string, string>;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  redis = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-env-"));
  repo = await createRepo(root);
  // The agent records the network interfaces its commands see and what the setup left.
  model = await startTaskModel({
    shell: (id) =>
      `mkdir -p out && ${INTERFACES} > out/${id}.net; (cat vendor/dep.txt 2>/dev/null || echo none) > out/${id}.dep`,
  });
  env = cleanEnv(root, model.env());
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await model?.close();
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const taskFile = async (name: string, tasks: Partial<FleetTask>[]) => {
  const file = join(root, `${name}.jsonl`);
  const lines = tasks.map((t) =>
    JSON.stringify({ repo, prompt: `task:${t.id} look around`, provider: "anthropic", ...t }),
  );
  await writeFile(file, lines.join("\n"));
  return file;
};
const q = (queue: string) => ["--redis", redis.url, "--queue", queue];
const cli = (args: string[], e = env) => runCliProcess(["fleet", ...args], { cwd: root, env: e });
const results = async (queue: string) =>
  Object.fromEntries(
    (await cli(["results", "--json", ...q(queue)])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .map((r) => [r.id, r]),
  );
/** The content a patch gives a new file. */
const added = (patch: string, file: string): string | undefined => {
  const at = patch.indexOf(`+++ b/${file}\n`);
  if (at < 0) return undefined;
  const hunk = patch.slice(at).split("\n").slice(2);
  const end = hunk.findIndex((l) => l.startsWith("diff --git"));
  return (end < 0 ? hunk : hunk.slice(0, end))
    .filter((l) => l.startsWith("+"))
    .map((l) => l.slice(1))
    .join("\n");
};

describe.skipIf(skip || !sandbox.available)("a task's environment where bubblewrap runs", () => {
  it("no network for the agent's commands by default; the setup runs first, in the log, out of the patch", async () => {
    const file = await taskFile("plain", [{ id: "plain" }, { id: "wants-net", network: true }]);
    expect((await cli(["submit", file, ...q("plain")])).code).toBe(0);
    const worker = await cli([
      "worker",
      "--exit-when-idle",
      "--setup",
      "mkdir -p vendor && echo installed > vendor/dep.txt && echo setup-ran",
      "--work-dir",
      join(root, "work-plain"),
      ...q("plain"),
    ]);
    expect(worker.code, worker.stderr).toBe(0);
    const byId = await results("plain");
    expect(byId.plain).toMatchObject({ status: "completed" });
    expect(added(byId.plain.patch, "out/plain.net")).toBe("lo");
    expect(added(byId.plain.patch, "out/plain.dep")).toBe("installed");
    expect(byId.plain.patch).not.toContain("vendor/dep.txt");
    expect(byId.plain.isolation).toBe("bubblewrap (workspace-write), network off for the agent's commands");
    const stored = await readdirLog("plain", "plain");
    expect(stored).toContain("setup-ran");
    // Asking for network is refused unless the worker allows it.
    expect(byId["wants-net"]).toMatchObject({ status: "failed" });
    expect(byId["wants-net"].error).toBe('refused by the worker\'s policy: network "on" is not allowed here');
  }, 90_000);

  it("the operator's settings template applies to every attempt (here: network on)", async () => {
    const template = join(root, "template");
    await mkdir(template, { recursive: true });
    await writeFile(join(template, "settings.json"), JSON.stringify({ sandbox: { network: true } }));
    const file = await taskFile("templated", [{ id: "templated" }]);
    expect((await cli(["submit", file, ...q("templated")])).code).toBe(0);
    const worker = await cli([
      "worker",
      "--exit-when-idle",
      "--task-home",
      template,
      "--work-dir",
      join(root, "work-templated"),
      ...q("templated"),
    ]);
    expect(worker.code, worker.stderr).toBe(0);
    const byId = await results("templated");
    const host = execFileSync("sh", ["-c", INTERFACES], { encoding: "utf8" }).trim();
    expect(added(byId.templated.patch, "out/templated.net")).toBe(host);
    expect(byId.templated.isolation).toBe(
      "bubblewrap (workspace-write), network on for the agent's commands",
    );
  }, 90_000);
});

describe.skipIf(skip)("a task that needs a sandbox", () => {
  it("is refused with the reason where bubblewrap cannot run; others run and say they were not sandboxed", async () => {
    // A PATH without bwrap: what an unprivileged pod without bubblewrap looks like to the worker.
    const bin = join(root, "bin-without-bwrap");
    await mkdir(bin, { recursive: true });
    for (const tool of ["git", "sh", "setpriv", "ls", "mkdir", "cat", "sleep"])
      await symlink(
        execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim(),
        join(bin, tool),
      );
    const bare = { ...env, PATH: bin };
    const file = await taskFile("needs", [{ id: "needs-sandbox", isolation: "sandbox" }, { id: "any" }]);
    expect((await cli(["submit", file, ...q("needs")], bare)).code).toBe(0);
    const worker = await cli(
      ["worker", "--exit-when-idle", "--work-dir", join(root, "work-needs"), ...q("needs")],
      bare,
    );
    expect(worker.code, worker.stderr).toBe(0);
    expect(worker.stderr).toContain("the agent's commands cannot be sandboxed here");
    const byId = await results("needs");
    expect(byId["needs-sandbox"]).toMatchObject({ status: "failed", attempts: 1 });
    expect(byId["needs-sandbox"].error).toContain(
      "the task requires a sandbox and this worker cannot give one",
    );
    expect(model.requestsFor("needs-sandbox")).toBe(0);
    expect(byId.any).toMatchObject({ status: "completed" });
    expect(byId.any.isolation).toContain("no sandbox (");
    expect(byId.any.isolation).toContain("commands ran unsandboxed, with network");
  }, 90_000);
});

/** The log a task left in the CLI's default result store. */
async function readdirLog(queue: string, id: string): Promise<string> {
  const { taskDir } = await import("../src/result-store.js");
  return readFile(join(taskDir(join(root, "attractor", "fleet"), queue, id), "log"), "utf8");
}
