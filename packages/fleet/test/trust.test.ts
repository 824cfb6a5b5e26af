// A trusted queue: the fleet against a real redis-server that wants a password and speaks only
// TLS with a private certificate authority, through the CLI's --redis rediss://… and --redis-ca;
// a wrong password or an unchecked certificate is a clear error (exit 1, password hidden), never
// an endless retry.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, requireBuiltCli, runCliProcess } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const openssl = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
const skip = redisUnavailable() ?? (openssl ? undefined : "openssl is missing");
const PASSWORD = "s3cret-pass";
let redis: TestRedis;
let root: string;
let repo: string;
let ca: string;
let model: TaskModel;
let env: Record<string, string>;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-trust-"));
  // A private certificate authority and a server certificate for 127.0.0.1.
  const tls = join(root, "tls");
  await mkdir(tls);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: tls, stdio: "ignore" });
  ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=fleet-test-ca",
  );
  ssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  );
  await writeFile(join(tls, "ext.cnf"), "subjectAltName=IP:127.0.0.1\n");
  ssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "1",
    "-extfile",
    "ext.cnf",
  );
  ca = join(tls, "ca.crt");
  redis = await startRedis({
    password: PASSWORD,
    tls: { cert: join(tls, "server.crt"), key: join(tls, "server.key") },
  });
  repo = await createRepo(root);
  model = await startTaskModel();
  env = cleanEnv(root, model.env());
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await model?.close();
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const cli = (args: string[], e = env) => runCliProcess(["fleet", ...args], { cwd: root, env: e });

describe.skipIf(skip)("a Redis with a password and TLS", () => {
  it("submit, worker and status work through rediss:// with the CA; REDIS_URL and REDIS_CA_FILE too", async () => {
    expect(redis.url).toMatch(/^rediss:\/\/:s3cret-pass@127\.0\.0\.1:\d+$/);
    const file = join(root, "tasks.jsonl");
    await writeFile(
      file,
      JSON.stringify({ id: "tls-0", repo, prompt: "task:tls-0 write the file", provider: "anthropic" }),
    );
    const submit = await cli(["submit", file, "--redis", redis.url, "--redis-ca", ca, "--queue", "tls"]);
    expect(submit.code, submit.stderr).toBe(0);
    const viaEnv = { ...env, REDIS_URL: redis.url, REDIS_CA_FILE: ca };
    const worker = await cli(
      ["worker", "--exit-when-idle", "--work-dir", join(root, "work"), "--queue", "tls"],
      viaEnv,
    );
    expect(worker.code, worker.stderr).toBe(0);
    const status = await cli(["status", "--queue", "tls"], viaEnv);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("1/1 finished: 1 completed");
  }, 90_000);

  it("a wrong password is refused with a clear error that does not show it", async () => {
    const wrong = redis.url.replace(PASSWORD, "not-the-password");
    const r = await cli(["status", "--redis", wrong, "--redis-ca", ca, "--queue", "tls"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot use Redis at rediss:\/\/:\*\*\*@127\.0\.0\.1:\d+: WRONGPASS/);
    expect(r.stderr).not.toContain("not-the-password");
  }, 60_000);

  it("a server certificate no trusted authority signed is refused", async () => {
    const r = await cli(["status", "--redis", redis.url, "--queue", "tls"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot use Redis at rediss://:***@127.0.0.1");
    expect(r.stderr).toMatch(/self[- ]signed|unable to verify|certificate/i);
    expect(r.stderr).not.toContain(PASSWORD);
  }, 60_000);
});
