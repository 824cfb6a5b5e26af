import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A task's private checkout. */
export interface Workspace {
  /** The checkout the agent works in. */
  readonly dir: string;
  /** attractor's home for this attempt (its settings, sessions), inside the workspace. */
  readonly home: string;
  /** The commit checked out, which the patch is taken against. */
  readonly base: string;
  /** Notes the agent's process group, so a later worker can end it if this one dies. */
  recordAgent(pid: number): Promise<void>;
  remove(): Promise<void>;
}

/** The repository could not be cloned or the ref checked out. */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
}

const git = async (args: string[], cwd?: string) =>
  (await run("git", args, { ...(cwd !== undefined && { cwd }), maxBuffer: 256 * 1024 * 1024 })).stdout;

const OWNER = "owner.json";

/**
 * Clones `repo` (a path or a URL) into a fresh directory under `root` and checks out `ref`: each
 * attempt of each task starts from the repository as it is, whatever an earlier attempt did. The
 * directory names its owner (host and worker pid) so a stale one can be told apart and removed.
 */
export async function prepareWorkspace(
  root: string,
  repo: string,
  ref: string | undefined,
): Promise<Workspace> {
  await mkdir(root, { recursive: true });
  const top = await mkdtemp(join(root, "task-"));
  const owner = { host: hostname(), pid: process.pid, started: processStart(process.pid) };
  await writeFile(join(top, OWNER), JSON.stringify(owner));
  const dir = join(top, "repo");
  const home = join(top, "attractor-home");
  try {
    const source = /^[\w+.-]+:\/\/|^[\w.-]+@[\w.-]+:/.test(repo) ? repo : resolve(repo);
    await git(["clone", "--quiet", source, dir]);
    if (ref !== undefined) await git(["checkout", "--quiet", "--detach", ref], dir);
    const base = (await git(["rev-parse", "HEAD"], dir)).trim();
    await mkdir(home);
    return {
      dir,
      home,
      base,
      recordAgent: (pid) => writeFile(join(top, OWNER), JSON.stringify({ ...owner, agent: pid })),
      remove: () => rm(top, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(top, { recursive: true, force: true });
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    throw new WorkspaceError(`cannot prepare ${repo}${ref ? ` at ${ref}` : ""}: ${detail}`);
  }
}

/**
 * When a process started (clock ticks after boot, /proc/PID/stat), or undefined off Linux: with
 * the pid it names one process, even after a restarted container reuses the pid.
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Whether process `pid` exists (one of another user counts). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

type Owner = { host: string; pid: number; started?: string; agent?: number };

const parseOwner = (text: string | undefined): Owner | undefined => {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as Owner);
  } catch {
    return undefined;
  }
};

/**
 * Removes the workspaces under `root` that a dead worker of this host left behind, ending their
 * agents' process groups first; a workspace without an owner note older than a minute (its
 * worker died while making it) goes too. Resolves to how many were removed.
 */
export async function removeStaleWorkspaces(root: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith("task-")) continue;
    const top = join(root, name);
    const text = await readFile(join(top, OWNER), "utf8").catch(() => undefined);
    // A note another worker is writing this moment reads empty: treated as no note yet.
    const owner = parseOwner(text);
    let stale: boolean;
    let agent: number | undefined;
    if (owner === undefined) {
      const info = await stat(top).catch(() => undefined);
      stale = info !== undefined && Date.now() - info.mtimeMs > 60_000;
    } else {
      stale =
        owner.host === hostname() &&
        (!alive(owner.pid) || (owner.started !== undefined && processStart(owner.pid) !== owner.started));
      agent = owner.agent;
    }
    if (!stale) continue;
    if (agent !== undefined)
      try {
        process.kill(-agent, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    await rm(top, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** Everything the agent changed in the workspace (new files included), as a git patch. */
export async function workspacePatch(workspace: Workspace): Promise<string> {
  await git(["add", "--all"], workspace.dir);
  return git(["diff", "--cached", "--binary", workspace.base], workspace.dir);
}

/**
 * The workspace with its patch base moved past what a setup command did (dependencies installed,
 * files generated that no .gitignore covers): the patch then holds the agent's changes only.
 */
export async function afterSetup(workspace: Workspace): Promise<Workspace> {
  await git(["add", "--all"], workspace.dir);
  const tree = (await git(["write-tree"], workspace.dir)).trim();
  return { ...workspace, base: tree };
}
