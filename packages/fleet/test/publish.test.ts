// Branch and pull-request output against a real redis-server, a local bare repository as the
// task's repository, a loopback server that checks each pull request against the shape of
// GitHub's REST API (POST /repos/{owner}/{repo}/pulls) and a worker whose agent is a small
// script: the agent's changes (not the setup's) become one commit on attractor/<run>/<id>, the
// pull request names it, the token is the worker's and the agent never sees it, and a worker
// that does not allow pushing refuses the task.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { branchName, type FleetTask, readResults, runWorker, submitTasks } from "../src/index.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";

const skip = redisUnavailable();
const TOKEN = "ghs_the-worker-s-token";
let redis: TestRedis;
let root: string;
let bare: string;
let agent: string;
let forge: Server;
let forgeUrl: string;
let env: Record<string, string>;
const pulls: { method: string; url: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] =
  [];
/** Answer the next pull request with this status instead of creating it. */
let refuseNext: number | undefined;

beforeAll(async () => {
  if (skip) return;
  redis = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-publish-"));
  const repo = await createRepo(root);
  // The forge's copy: …/acme/widgets.git, as a GitHub URL ends in OWNER/NAME.git.
  await mkdir(join(root, "forge", "acme"), { recursive: true });
  bare = join(root, "forge", "acme", "widgets.git");
  execFileSync("git", ["clone", "--quiet", "--bare", repo, bare]);
  agent = join(root, "agent.sh");
  const ok = JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: "Renamed the logger.",
    num_turns: 1,
  });
  await writeFile(
    agent,
    [
      "#!/bin/sh",
      'echo "$2" > changed.txt',
      "cat setup-made.txt > setup-seen.txt",
      'if [ -n "$GITHUB_TOKEN" ]; then echo "$GITHUB_TOKEN"; else echo "no token"; fi > token-seen.txt',
      `echo '${ok}'`,
    ].join("\n"),
  );
  forge = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => {
      text += d;
    });
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text || "{}");
      } catch {}
      pulls.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      // GitHub's documented request: bearer token, its media type and API version, JSON with
      // title, head and base (strings) and an optional body.
      const shaped =
        req.method === "POST" &&
        req.url === "/repos/acme/widgets/pulls" &&
        req.headers.authorization === `Bearer ${TOKEN}` &&
        req.headers.accept === "application/vnd.github+json" &&
        req.headers["x-github-api-version"] === "2022-11-28" &&
        typeof body.title === "string" &&
        typeof body.head === "string" &&
        typeof body.base === "string" &&
        (body.body === undefined || typeof body.body === "string");
      if (!shaped) return reply(400, { message: "Problems parsing JSON" });
      if (refuseNext !== undefined) {
        const status = refuseNext;
        refuseNext = undefined;
        return reply(status, { message: status === 401 ? "Bad credentials" : "Validation Failed" });
      }
      reply(201, {
        number: pulls.length,
        html_url: `https://github.example/acme/widgets/pull/${pulls.length}`,
      });
    });
  });
  await new Promise<void>((r) => forge.listen(0, "127.0.0.1", () => r()));
  forgeUrl = `http://127.0.0.1:${(forge.address() as { port: number }).port}`;
  env = cleanEnv(root, { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: forgeUrl });
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await new Promise((r) => forge?.close(r));
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

const git = (...args: string[]) =>
  execFileSync("git", ["--git-dir", bare, ...args], { encoding: "utf8" }).trim();
const connection = (queue: string) => ({ redis: redis.url, queue, env, store: join(root, "store") });
const task = (id: string, output: FleetTask["output"]): FleetTask => ({
  id,
  repo: bare,
  prompt: `Rename the logger (${id})`,
  ...(output !== undefined && { output }),
});
const work = (queue: string, push: boolean) =>
  runWorker({
    ...connection(queue),
    command: ["/bin/sh", agent],
    exitWhenIdle: true,
    workRoot: join(root, "work"),
    policy: { push },
    // A setup step that changes the checkout: its file must stay out of the commit.
    environment: { setup: "echo generated > setup-made.txt" },
  });

describe.skipIf(skip)("branch and pull-request output", () => {
  it("pushes the agent's changes as one commit on attractor/<run>/<id> and opens the pull request", async () => {
    const { run } = await submitTasks([task("pub-branch", "branch"), task("pub-pr", "pull-request")], {
      ...connection("pub"),
      attempts: 1,
    });
    await work("pub", true);
    const results = await readResults(connection("pub"));
    const byId = new Map(results.map((r) => [r.id, r]));
    const branch = branchName(run, "pub-branch");
    expect(byId.get("pub-branch")).toMatchObject({ status: "completed", branch, pull_request: null });
    expect(byId.get("pub-pr")).toMatchObject({
      status: "completed",
      branch: branchName(run, "pub-pr"),
      pull_request: expect.stringMatching(/^https:\/\/github\.example\/acme\/widgets\/pull\/\d+$/),
    });
    // One commit on top of main with the agent's files; the setup's file is not in it.
    expect(git("rev-parse", `${branch}~1`)).toBe(git("rev-parse", "main"));
    const files = git("show", "--name-only", "--format=", branch).split("\n").sort();
    expect(files).toEqual(["changed.txt", "setup-seen.txt", "token-seen.txt"]);
    // The agent saw the setup's file (the setup ran), which is not committed itself.
    expect(git("show", `${branch}:setup-seen.txt`)).toBe("generated");
    expect(git("show", `${branch}:changed.txt`)).toBe("Rename the logger (pub-branch)");
    // The agent never had the worker's token.
    expect(git("show", `${branch}:token-seen.txt`)).toBe("no token");
    expect(git("log", "-1", "--format=%s", branch)).toBe("Rename the logger (pub-branch)");

    const [pr] = pulls.filter((p) => p.method === "POST");
    expect(pr?.body).toMatchObject({
      title: "Rename the logger (pub-pr)",
      head: branchName(run, "pub-pr"),
      base: "main",
    });
    expect(String(pr?.body.body)).toContain("Renamed the logger.");
  }, 60_000);

  it("a pull request the forge refuses fails the task with the reason; a worker that does not allow pushing refuses it", async () => {
    refuseNext = 401;
    await submitTasks([task("pub-denied", "pull-request")], { ...connection("pub-denied"), attempts: 1 });
    await work("pub-denied", true);
    const [denied] = await readResults(connection("pub-denied"));
    expect(denied?.status).toBe("failed");
    expect(denied?.error).toContain("opening the pull request failed: 401");
    expect(denied?.error).toContain("Bad credentials");

    await submitTasks([task("pub-refused", "branch")], { ...connection("pub-refused"), attempts: 1 });
    await work("pub-refused", false);
    const [refused] = await readResults(connection("pub-refused"));
    expect(refused).toMatchObject({ status: "failed", branch: null });
    expect(refused?.error).toContain('refused by the worker\'s policy: output "branch"');
    expect(git("branch", "--list", "attractor/*", "--format=%(refname:short)")).not.toContain("pub-refused");
  }, 60_000);
});
