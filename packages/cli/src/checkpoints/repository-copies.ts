// Copies of the project's own git repository (.git), kept beside the shadow repository for the
// checkpoints taken before lines whose effect cannot be read or that were approved as critical:
// a wipe such as `find . -type f -exec rm -f {} +` deletes .git's files too, and `git rm -r . &&
// git commit` moves its history, neither of which the shadow repository (which leaves .git out)
// can give back. Restoring such a checkpoint puts the copy back; the repository it replaces is
// kept too, so a restore loses nothing.
import { constants } from "node:fs";
import { cp, lstat, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";

/** How many copies are kept (the oldest go first); each is a full copy of .git. */
const KEEP = 4;

/** Where the copies of one project live, inside its shadow repository. */
function copiesDir(gitDir: string): string {
  return join(gitDir, "repositories");
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Copies a file tree, cloning file contents where the file system can (copy-on-write). */
async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, {
    recursive: true,
    preserveTimestamps: true,
    verbatimSymlinks: true,
    mode: constants.COPYFILE_FICLONE,
  });
}

/** Drops the oldest copies beyond KEEP. */
async function prune(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  const dated = await Promise.all(
    entries
      .filter((e) => !e.endsWith(".partial"))
      .map(async (e) => ({ e, t: (await stat(join(dir, e)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  dated.sort((a, b) => b.t - a.t);
  for (const { e } of dated.slice(KEEP)) await rm(join(dir, e), { recursive: true, force: true });
}

/**
 * Saves a copy of `<projectRoot>/.git` for checkpoint `id` (replacing an older copy for it);
 * nothing when the project has no .git. Written aside and renamed into place, so a copy is
 * whole or absent.
 */
export async function saveRepositoryCopy(projectRoot: string, gitDir: string, id: string): Promise<boolean> {
  const source = join(projectRoot, ".git");
  if (!(await exists(source))) return false;
  const dir = copiesDir(gitDir);
  const target = join(dir, id);
  const partial = `${target}.partial`;
  await rm(partial, { recursive: true, force: true });
  await copyTree(source, join(partial, ".git"));
  await rm(target, { recursive: true, force: true });
  await rename(partial, target);
  await prune(dir);
  return true;
}

/**
 * Puts back the copy saved for checkpoint `id`, if there is one: the project's present .git (if
 * any) is kept as a copy of its own first. Returns whether a copy was restored.
 */
export async function restoreRepositoryCopy(
  projectRoot: string,
  gitDir: string,
  id: string,
): Promise<boolean> {
  const saved = join(copiesDir(gitDir), id, ".git");
  if (!(await exists(saved))) return false;
  const live = join(projectRoot, ".git");
  if (await exists(live)) {
    const aside = join(copiesDir(gitDir), `replaced-${Date.now()}`);
    await copyTree(live, join(aside, ".git"));
    await rm(live, { recursive: true, force: true });
  }
  const partial = join(projectRoot, ".git.restoring");
  await rm(partial, { recursive: true, force: true });
  await copyTree(saved, partial);
  await rename(partial, live);
  return true;
}
