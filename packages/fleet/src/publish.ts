import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { FleetTask } from "./task.js";
import type { Workspace } from "./workspace.js";

// The optional step after a successful attempt: the agent's changes as one commit on a branch of
// the task's repository, pushed with the worker's git credentials, and optionally a pull request
// opened through GitHub's REST API with the worker's token. Nothing here comes from the task but
// what it asks for (`output`); the worker's policy decides whether it may ask.

const run = promisify(execFile);

/** The worker's variables holding the forge's token (never given to the agent of a worker that may push). */
export const FORGE_TOKENS = ["GITHUB_TOKEN", "GH_TOKEN"] as const;

/** What a task asks for beyond its patch: a pushed branch, or a branch and a pull request. */
export type TaskOutput = "branch" | "pull-request";

/** What the step published. */
export interface Published {
  /** The branch pushed, or undefined when the agent changed nothing. */
  readonly branch?: string;
  /** The pull request's web address. */
  readonly pullRequest?: string;
}

/** The branch could not be made, pushed, or its pull request opened. */
export class PublishError extends Error {
  override readonly name = "PublishError";
  constructor(
    readonly step: "commit" | "push" | "pull-request",
    message: string,
  ) {
    super(
      `${step === "pull-request" ? "opening the pull request" : step === "push" ? "pushing the branch" : "committing the changes"} failed: ${message}`,
    );
  }
}

/** A branch name git accepts, from the run and the task id: `attractor/<run>/<id>`. */
export function branchName(run: string, id: string): string {
  const part = (s: string) =>
    s
      .replace(/[^\w.-]+/g, "-")
      .replace(/\.{2,}/g, ".")
      .replace(/^[.-]+|[.-]+$/g, "")
      .replace(/\.lock$/, "-lock")
      .slice(0, 100) || "task";
  return `attractor/${part(run)}/${part(id)}`;
}

/** GitHub's owner and name of a repository: the last two parts of its URL or path (…/OWNER/NAME(.git)). */
export function githubRepository(repo: string): { owner: string; name: string } | undefined {
  const m = /([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(repo);
  return m === null ? undefined : { owner: m[1] as string, name: m[2] as string };
}

const git = async (args: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>) =>
  (
    await run("git", [...args], { cwd, env: { ...env } as NodeJS.ProcessEnv, maxBuffer: 256 * 1024 * 1024 })
  ).stdout.trim();

const detail = (error: unknown) =>
  ((error as { stderr?: string }).stderr ?? "").trim() || (error as Error).message;

/**
 * Commits the agent's changes (the patch, applied to the commit the task checked out, so what a
 * setup command did stays out) as one commit, pushes it to the task's repository as
 * `branchName(run, id)` (replacing a branch an earlier attempt pushed), and with `pull-request`
 * opens a pull request against the branch the task checked out (or the repository's default
 * branch) through GitHub's REST API (GITHUB_API_URL, else https://api.github.com; the token from
 * GITHUB_TOKEN or GH_TOKEN of `env`, the worker's). An empty patch publishes nothing.
 */
export async function publishChanges(options: {
  readonly task: FleetTask;
  readonly run: string;
  readonly output: TaskOutput;
  readonly workspace: Workspace;
  readonly patch: string;
  /** The agent's final answer, the pull request's description. */
  readonly answer: string;
  /** The worker's environment: git credentials, the forge's token and API address. */
  readonly env: Readonly<Record<string, string | undefined>>;
}): Promise<Published> {
  const { task, workspace, env } = options;
  if (options.patch.trim() === "") return {};
  const dir = workspace.dir;
  const branch = branchName(options.run, task.id);
  const gitEnv = {
    ...env,
    GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME ?? "attractor",
    GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL ?? "attractor@localhost",
    GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME ?? "attractor",
    GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL ?? "attractor@localhost",
    GIT_TERMINAL_PROMPT: "0",
  };
  const title = (task.prompt.split("\n")[0] ?? task.id).trim().slice(0, 72) || task.id;
  let commit: string;
  const scratch = await mkdtemp(join(tmpdir(), "attractor-publish-"));
  try {
    // A private index: the checkout's own index holds the setup's changes too.
    const indexEnv = { ...gitEnv, GIT_INDEX_FILE: join(scratch, "index") };
    const patchFile = join(scratch, "patch");
    await writeFile(patchFile, options.patch);
    await git(["read-tree", "HEAD"], dir, indexEnv);
    await git(["apply", "--cached", "--binary", patchFile], dir, indexEnv);
    const tree = await git(["write-tree"], dir, indexEnv);
    commit = await git(
      [
        "commit-tree",
        tree,
        "-p",
        "HEAD",
        "-m",
        `${title}\n\nattractor fleet task ${task.id} (run ${options.run})`,
      ],
      dir,
      indexEnv,
    );
  } catch (error) {
    throw new PublishError("commit", detail(error));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  try {
    await git(["push", "--quiet", "origin", `+${commit}:refs/heads/${branch}`], dir, gitEnv);
  } catch (error) {
    throw new PublishError("push", detail(error));
  }
  if (options.output === "branch") return { branch };
  const base = await baseBranch(dir, task.ref, gitEnv);
  const pullRequest = await openPullRequest({
    repo: task.repo,
    branch,
    base,
    title,
    body: options.answer,
    task,
    run: options.run,
    env,
  });
  return { branch, pullRequest };
}

/** The branch a pull request goes into: the task's ref when it names a branch, else the repository's default. */
async function baseBranch(
  dir: string,
  ref: string | undefined,
  env: Record<string, string | undefined>,
): Promise<string> {
  if (ref !== undefined) {
    const known = await git(
      ["rev-parse", "--verify", "--quiet", `refs/remotes/origin/${ref}`],
      dir,
      env,
    ).catch(() => "");
    if (known !== "") return ref;
  }
  const head = await git(["symbolic-ref", "--short", "refs/remotes/origin/HEAD"], dir, env).catch(() => "");
  if (head.startsWith("origin/")) return head.slice("origin/".length);
  throw new PublishError("pull-request", "cannot tell the repository's default branch (no origin/HEAD)");
}

/** Opens the pull request (or finds the one already open for the branch); its web address. */
async function openPullRequest(o: {
  repo: string;
  branch: string;
  base: string;
  title: string;
  body: string;
  task: FleetTask;
  run: string;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<string> {
  const token = o.env.GITHUB_TOKEN || o.env.GH_TOKEN;
  if (!token)
    throw new PublishError("pull-request", "no GITHUB_TOKEN (or GH_TOKEN) in the worker's environment");
  const target = githubRepository(o.repo);
  if (target === undefined)
    throw new PublishError("pull-request", `cannot tell the GitHub repository of ${o.repo}`);
  const api = (o.env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "");
  const headers = {
    accept: "application/vnd.github+json",
    authorization: `Bearer ${token}`,
    "x-github-api-version": "2022-11-28",
    "content-type": "application/json",
    "user-agent": "attractor-fleet",
  };
  const pulls = `${api}/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.name)}/pulls`;
  const call = async (url: string, init: RequestInit) => {
    try {
      return await fetch(url, { ...init, headers, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new PublishError("pull-request", `${url}: ${(error as Error).message}`);
    }
  };
  const created = await call(pulls, {
    method: "POST",
    body: JSON.stringify({
      title: o.title,
      head: o.branch,
      base: o.base,
      body: `${o.body}\n\n---\nattractor fleet task \`${o.task.id}\` (run \`${o.run}\`)`,
    }),
  });
  const answer = (await created.json().catch(() => ({}))) as { html_url?: string; message?: string };
  if (created.status === 201 && typeof answer.html_url === "string") return answer.html_url;
  if (created.status === 422) {
    // A re-run: the branch has its pull request already.
    const open = await call(`${pulls}?state=open&head=${encodeURIComponent(`${target.owner}:${o.branch}`)}`, {
      method: "GET",
    });
    const list = (await open.json().catch(() => [])) as { html_url?: string }[];
    const url = Array.isArray(list) ? list[0]?.html_url : undefined;
    if (open.ok && typeof url === "string") return url;
  }
  throw new PublishError(
    "pull-request",
    `${created.status} from ${pulls}: ${answer.message ?? "no pull request in the answer"}`,
  );
}
