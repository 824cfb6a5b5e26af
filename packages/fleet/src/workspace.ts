import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
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
  remove(): Promise<void>;
}

/** The repository could not be cloned or the ref checked out. */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
}

const git = async (args: string[], cwd?: string) =>
  (await run("git", args, { ...(cwd !== undefined && { cwd }), maxBuffer: 256 * 1024 * 1024 })).stdout;

/**
 * Clones `repo` (a path or a URL) into a fresh directory under `root` and checks out `ref`: each
 * attempt of each task starts from the repository as it is, whatever an earlier attempt did.
 */
export async function prepareWorkspace(
  root: string,
  repo: string,
  ref: string | undefined,
): Promise<Workspace> {
  await mkdir(root, { recursive: true });
  const top = await mkdtemp(join(root, "task-"));
  const dir = join(top, "repo");
  const home = join(top, "attractor-home");
  try {
    const source = /^[\w+.-]+:\/\/|^[\w.-]+@[\w.-]+:/.test(repo) ? repo : resolve(repo);
    await git(["clone", "--quiet", source, dir]);
    if (ref !== undefined) await git(["checkout", "--quiet", "--detach", ref], dir);
    const base = (await git(["rev-parse", "HEAD"], dir)).trim();
    await mkdir(home);
    return { dir, home, base, remove: () => rm(top, { recursive: true, force: true }) };
  } catch (error) {
    await rm(top, { recursive: true, force: true });
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    throw new WorkspaceError(`cannot prepare ${repo}${ref ? ` at ${ref}` : ""}: ${detail}`);
  }
}

/** Everything the agent changed in the workspace (new files included), as a git patch. */
export async function workspacePatch(workspace: Workspace): Promise<string> {
  await git(["add", "--all"], workspace.dir);
  return git(["diff", "--cached", "--binary", workspace.base], workspace.dir);
}
