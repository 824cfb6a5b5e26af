// Copies of the project's own git repository (.git) and ignored files, kept beside the shadow repository for the
// checkpoints taken before lines whose effect cannot be read or that were approved as critical:
// a wipe such as `find . -type f -exec rm -f {} +` deletes .git's files too, and `git rm -r . &&
// git commit` moves its history, neither of which the shadow repository (which leaves .git out)
// can give back. Restoring such a checkpoint puts the copy back; the repository it replaces is
// kept too, so a restore loses nothing.
import { constants } from "node:fs";
import { cp, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
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

/** The most a copy takes of ignored files (`.env`, build output); beyond it the rest is left out. */
const IGNORED_BUDGET_BYTES = 64 * 1024 * 1024;

/** Bytes under a path, stopping once past `limit`. */
async function sizeOf(path: string, limit: number): Promise<number> {
  const info = await lstat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const e of await readdir(path)) {
    total += await sizeOf(join(path, e), limit - total);
    if (total > limit) break;
  }
  return total;
}

/**
 * Saves a copy of `<projectRoot>/.git` for checkpoint `id` (replacing an older copy for it),
 * and of the ignored files and directories the shadow repository leaves out (`ignored`, relative
 * paths; dependency folders such as node_modules excluded), up to a budget. Nothing when the
 * project has neither. Written aside and renamed into place, so a copy is whole or absent.
 * Returns notices for the user: what was left out (never silently), also kept with the copy and
 * returned again when it is restored.
 */
export async function saveRepositoryCopy(
  projectRoot: string,
  gitDir: string,
  id: string,
  ignored: readonly string[] = [],
): Promise<string[]> {
  const source = join(projectRoot, ".git");
  const hasGit = await exists(source);
  const extra = ignored.filter((p) => !/(^|\/)(node_modules|\.git)(\/|$)/.test(p));
  if (!hasGit && extra.length === 0) return [];
  const dir = copiesDir(gitDir);
  const target = join(dir, id);
  const partial = `${target}.partial`;
  await rm(partial, { recursive: true, force: true });
  if (hasGit) await copyTree(source, join(partial, ".git"));
  let budget = IGNORED_BUDGET_BYTES;
  const leftOut: string[] = [];
  for (const p of extra) {
    const from = join(projectRoot, p);
    const size = await sizeOf(from, budget).catch(() => Number.POSITIVE_INFINITY);
    if (size > budget) {
      leftOut.push(p);
      continue;
    }
    budget -= size;
    await copyTree(from, join(partial, "ignored", p)).catch(() => leftOut.push(p));
  }
  const notices =
    leftOut.length > 0
      ? [`ignored files not kept: over ${IGNORED_BUDGET_BYTES / 1024 / 1024} MB (${summarise(leftOut)})`]
      : [];
  await mkdir(partial, { recursive: true });
  await writeFile(join(partial, "notices.json"), JSON.stringify(notices));
  await rm(target, { recursive: true, force: true });
  await rename(partial, target);
  await prune(dir);
  return notices;
}

/** The first few paths, and how many more. */
function summarise(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(", ");
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
}

/**
 * Puts back what was saved for checkpoint `id`, if anything: the ignored files as they were, and
 * the .git copy, the project's present .git (if any) being kept as a copy of its own first.
 * Returns whether a .git copy was restored, and the notices saved with the copy (what it left out).
 */
export async function restoreRepositoryCopy(
  projectRoot: string,
  gitDir: string,
  id: string,
): Promise<{ readonly restored: boolean; readonly notices: readonly string[] }> {
  const copy = join(copiesDir(gitDir), id);
  const notices = await readFile(join(copy, "notices.json"), "utf8").then(
    (text) => JSON.parse(text) as string[],
    () => [] as string[],
  );
  // Ignored files come back as they were (files made since are left alone).
  if (await exists(join(copy, "ignored")))
    await cp(join(copy, "ignored"), projectRoot, { recursive: true, force: true, verbatimSymlinks: true });
  const saved = join(copy, ".git");
  if (!(await exists(saved))) return { restored: false, notices };
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
  return { restored: true, notices };
}
