// A real repository whose tests need `npm install`, run as a fleet task end to end: a package
// registry on 127.0.0.1 serves its dependency, a real redis-server and worker take the task, the
// worker's setup (`npm install`) fetches the dependency with network, and the agent — in
// bubblewrap without network — runs `npm test` and a network probe. The task succeeds, the tests
// pass on the installed dependency, the probe cannot reach the registry the setup used, the result
// says the agent had no network, and the patch holds the agent's files only (no node_modules, no
// lockfile the setup wrote).
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { probeBubblewrap } from "@attractor/agent";
import { startTestPodman } from "@attractor/agent/testing";
import { cleanEnv, requireBuiltCli, runCliProcess } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskDir } from "../src/result-store.js";
import { type NpmRegistry, startNpmRegistry } from "./support/npm-registry.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const skip = redisUnavailable();
const sandbox = await probeBubblewrap();
const podman = skip ? { unavailable: "no redis-server" } : startTestPodman();
let redis: TestRedis;
let registry: NpmRegistry;
let root: string;
let repo: string;
let model: TaskModel;
let env: Record<string, string>;

/** Connects to the registry's port from where it runs and prints `reached` or the error code. */
const probe = (port: string) =>
  `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('reached');process.exit(0)}).on('error',(e)=>console.log(e.code))"`;

/** A repository whose `npm test` needs its dependency installed. */
async function createNpmRepo(dir: string): Promise<string> {
  await mkdir(dir);
  await writeFile(
    join(dir, "package.json"),
    `${JSON.stringify(
      {
        name: "svc",
        version: "1.0.0",
        private: true,
        scripts: { test: "node test.js" },
        dependencies: { "fleet-pad": "1.2.0" },
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(
    join(dir, "test.js"),
    `const assert = require("node:assert");\nconst pad = require("fleet-pad");\nassert.strictEqual(pad("7", 3), "007");\nconsole.log("tests passed");\n`,
  );
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "init");
  return dir;
}

beforeAll(async () => {
  if (skip || !sandbox.available) return;
  requireBuiltCli();
  redis = await startRedis();
  registry = await startNpmRegistry([
    {
      name: "fleet-pad",
      version: "1.2.0",
      files: {
        "index.js": 'module.exports = (s, n) => (s.length >= n ? s : "0".repeat(n - s.length) + s);\n',
      },
    },
  ]);
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-npm-"));
  repo = await createNpmRepo(join(root, "svc"));
  const port = new URL(registry.url).port;
  // The agent runs the project's tests and probes the registry, recording both in its change.
  model = await startTaskModel({
    shell: () =>
      [
        "mkdir -p out",
        "npm test > out/test.log 2>&1; echo $? > out/test.code",
        `${probe(port)} > out/probe`,
        "sed -n 's/^ *\\([^:]*\\):.*/\\1/p' /proc/net/dev | sort > out/interfaces",
        "(cat /etc/attractor-image 2>/dev/null || echo none) > out/image",
      ].join("; "),
  });
  env = cleanEnv(root, {
    ...model.env(),
    npm_config_registry: registry.url,
    npm_config_cache: join(root, "npm-cache"),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  });
}, 60_000);

afterAll(async () => {
  await model?.close();
  await registry?.close();
  await redis?.destroy();
  if (!("unavailable" in podman)) podman.destroy();
  if (root) await rm(root, { recursive: true, force: true });
});

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

/** The variables that point podman at the test's configuration and storage. */
const podmanEnv = (): Record<string, string> =>
  "unavailable" in podman
    ? {}
    : {
        CONTAINERS_CONF: podman.env.CONTAINERS_CONF as string,
        CONTAINERS_STORAGE_CONF: podman.env.CONTAINERS_STORAGE_CONF as string,
      };

/** Submits one task that runs the tests to `queue`, runs a worker with `workerArgs`, returns its result. */
async function runTestTask(queue: string, workerArgs: string[], workerEnv = env) {
  const q = ["--redis", redis.url, "--queue", queue];
  const cli = (args: string[]) => runCliProcess(["fleet", ...args], { cwd: root, env: workerEnv });
  const tasks = join(root, `${queue}.jsonl`);
  await writeFile(
    tasks,
    `${JSON.stringify({ id: "svc-test", repo, prompt: "task:svc-test run the tests", provider: "anthropic", isolation: "sandbox" })}\n`,
  );
  expect((await cli(["submit", tasks, ...q])).code).toBe(0);
  const served = registry.served.length;
  const worker = await cli([
    "worker",
    "--exit-when-idle",
    "--setup",
    "npm install",
    "--work-dir",
    join(root, `work-${queue}`),
    ...workerArgs,
    ...q,
  ]);
  expect(worker.code, worker.stderr).toBe(0);
  const out = await cli(["results", "--json", ...q]);
  expect(out.code, out.stderr).toBe(0);
  const result = JSON.parse(out.stdout.trim());
  const log = await readFile(
    join(taskDir(join(root, "attractor", "fleet"), queue, "svc-test"), "log"),
    "utf8",
  );
  return { result, log, served: registry.served.slice(served) };
}

/** What every run of the test task must show, wherever it ran: see the file's comment. */
function expectTestsPassedOffline(result: { patch: string }, served: readonly string[], log: string): void {
  // The setup reached the registry: the packument and the tarball, once each.
  expect(served).toEqual(["/fleet-pad", "/fleet-pad/-/fleet-pad-1.2.0.tgz"]);
  expect(log).toContain("$ npm install");
  expect(log).toContain("added 1 package");
  // The agent's tests ran on the installed dependency and passed.
  expect(added(result.patch, "out/test.log")).toContain("tests passed");
  expect(added(result.patch, "out/test.code")).toBe("0");
  // The agent could not reach the registry the setup used: its loopback is its own.
  expect(added(result.patch, "out/probe")).toBe("ECONNREFUSED");
  expect(added(result.patch, "out/interfaces")).toBe("lo");
  // The patch is the agent's change alone.
  const files = [...result.patch.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]).sort();
  expect(files).toEqual(["out/image", "out/interfaces", "out/probe", "out/test.code", "out/test.log"]);
}

describe.skipIf(skip || !sandbox.available)("a real repository that needs npm install, in bubblewrap", () => {
  it("installs in the setup with network, then the agent's tests pass without network", async () => {
    const { result, log, served } = await runTestTask("npm", ["--require-sandbox"]);
    expect(result).toMatchObject({ id: "svc-test", status: "completed", attempts: 1 });
    expect(result.isolation).toBe("bubblewrap (workspace-write), network off for the agent's commands");
    expectTestsPassedOffline(result, served, log);
    expect(added(result.patch, "out/image")).toBe("none");
  }, 120_000);
});

describe.skipIf(skip || !sandbox.available || "unavailable" in podman)(
  `a real repository that needs npm install, in a container per task${"unavailable" in podman ? ` (skipped: ${podman.unavailable})` : ""}`,
  () => {
    it("the setup and the agent's commands run in the image; the agent's container has no network", async () => {
      if ("unavailable" in podman) return;
      const { result, log, served } = await runTestTask(
        "npm-container",
        ["--container-image", podman.image, "--container-runtime", "podman"],
        { ...env, ...podmanEnv() },
      );
      expect(result).toMatchObject({ id: "svc-test", status: "completed", attempts: 1 });
      expect(result.isolation).toBe(
        `container ${podman.image} (podman), network off for the agent's commands`,
      );
      expectTestsPassedOffline(result, served, log);
      // The agent's commands ran in the image, not on the worker's machine.
      expect(added(result.patch, "out/image")).toBe(podman.marker);
      // Each attempt's containers are gone with it.
      const left = execFileSync("podman", ["ps", "-a", "--format", "{{.Names}}"], {
        env: podman.env,
        encoding: "utf8",
      });
      expect(left.trim()).toBe("");
    }, 180_000);

    it("a worker removes at start the containers a dead worker of this host left, not a live one's", async () => {
      if ("unavailable" in podman) return;
      const host = hostname().replace(/[^a-zA-Z0-9_.]/g, "_");
      const started = (pid: number) => {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      };
      const dead = spawnSync("true").pid;
      const names = {
        dead: `attractor-task-${host}-${dead}-1234-0a0b0c0d`,
        live: `attractor-task-${host}-${process.pid}-${started(process.pid)}-0a0b0c0e`,
        otherHost: `attractor-task-elsewhere-${dead}-1234-0a0b0c0f`,
      };
      const podmanRun = (args: string[]) =>
        execFileSync("podman", args, { env: podman.env, encoding: "utf8" }).trim();
      for (const name of Object.values(names))
        podmanRun(["run", "-d", "--name", name, "--network", "none", podman.image, "sleep", "infinity"]);
      const worker = await runCliProcess(
        [
          "fleet",
          "worker",
          "--exit-when-idle",
          "--container-image",
          podman.image,
          "--redis",
          redis.url,
          "--queue",
          "npm-stale",
        ],
        { cwd: root, env: { ...env, ...podmanEnv() } },
      );
      expect(worker.code, worker.stderr).toBe(0);
      expect(worker.stderr).toContain("removed 1 container left by a dead worker");
      const left = podmanRun(["ps", "-a", "--format", "{{.Names}}"]).split("\n").sort();
      expect(left).toEqual([names.live, names.otherHost].sort());
      podmanRun(["rm", "-f", "-t", "0", names.live, names.otherHost]);
    }, 60_000);

    it("a worker whose image cannot be had refuses to start, with the runtime's reason", async () => {
      if ("unavailable" in podman) return;
      const worker = await runCliProcess(
        [
          "fleet",
          "worker",
          "--exit-when-idle",
          "--container-image",
          "localhost/no-such-image:0",
          "--redis",
          redis.url,
          "--queue",
          "npm-none",
        ],
        {
          cwd: root,
          env: { ...env, ...podmanEnv() },
        },
      );
      expect(worker.code).toBe(1);
      expect(worker.stderr).toContain("podman has no image localhost/no-such-image:0 and cannot pull it");
    }, 60_000);
  },
);
