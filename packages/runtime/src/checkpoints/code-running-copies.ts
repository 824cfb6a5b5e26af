// Files that run code later (the agent's CODE_RUNNING_FILES) must come back with /undo and rewind
// even where the shadow repository cannot hold them: a gitignored `.envrc` or `.vscode` is left
// out by staging, and git refuses any path inside `.git` (`.git/hooks/pre-commit`, `.git/config`).
// Ignored ones are force-staged (see codeRunningPaths); those inside .git are recorded here, by
// content hash, in a manifest carried in the checkpoint's message.
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CODE_RUNNING_FILES } from "@attractor/agent";

/** Code-running files inside .git at one moment: posix path → `<sha256>:<mode>`. */
export type GitFilesManifest = Readonly<Record<string, string>>;

/** Entries of the list the shadow repository can stage (outside .git), at the project's top. */
const STAGEABLE = CODE_RUNNING_FILES.filter((e) => !e.path.startsWith(".git/")).map((e) => e.path);
/** Single files of the list inside .git; `.git/hooks` is read as a folder. */
const GIT_FILES = CODE_RUNNING_FILES.filter((e) => e.path.startsWith(".git/") && e.kind === "file").map(
  (e) => e.path,
);
const HOOKS = ".git/hooks";

/**
 * The top-level code-running files and folders that exist now, to be force-staged (`git add -f`)
 * beside the rest of the tree: staged once, git keeps tracking them though ignored, so a later
 * deletion is staged and a file created after a checkpoint is removed by restoring it. Their
 * names hold no spaces (the snapshot scripts word-split them).
 */
export function codeRunningPaths(root: string): string[] {
  return STAGEABLE.filter((p) => hasContent(join(root, p)));
}

// An empty folder holds nothing git could stage, and it may be a sandbox's placeholder that is
// removed at any moment: naming it would make `git add` fail on a path that vanished.
function hasContent(path: string): boolean {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return false;
  if (!info.isDirectory()) return true;
  try {
    return readdirSync(path).length > 0;
  } catch (error) {
    // Gone since the lstat: nothing to stage. Unreadable: named, so that staging reports it.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/**
 * Where the contents named by manifests are kept: beside the shadow repository, which may not
 * exist yet when the first change is recorded (it is created aside and renamed into place).
 */
function store(gitDir: string): string {
  return `${gitDir}.code-running`;
}

/**
 * Reads the code-running files inside the project's .git (hooks, config) and keeps their contents
 * for the store under `gitDir` (once per content), written in the background (writeRecordedGitFiles,
 * awaited before a checkpoint naming them is committed); undefined when the project has no .git folder (a `.git`
 * file points elsewhere: not ours to record). Synchronous: a few small files, read on the path
 * every modifying call waits for; creating their copies (a new home: a dozen files) is not.
 */
export function recordGitFiles(root: string, gitDir: string): GitFilesManifest | undefined {
  const dotGit = lstatSync(join(root, ".git"), { throwIfNoEntry: false });
  if (!dotGit?.isDirectory()) return undefined;
  const paths = [...GIT_FILES];
  try {
    for (const e of readdirSync(join(root, HOOKS), { withFileTypes: true }))
      if (e.isFile() || e.isSymbolicLink()) paths.push(`${HOOKS}/${e.name}`);
  } catch {
    // No hooks folder.
  }
  const manifest: Record<string, string> = {};
  for (const path of paths) {
    const file = join(root, path);
    const info = lstatSync(file, { throwIfNoEntry: false, bigint: true });
    if (!info?.isFile()) continue;
    // A file whose inode, size, times and mode are all as last read has the content last read
    // (git trusts the same stat data): it is not read and hashed again on every change.
    const stamp = `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.mode}`;
    const known = hashes.get(file);
    let hash = known?.stamp === stamp ? known.hash : undefined;
    const waiting = unwrittenOf(gitDir);
    if (hash === undefined || !(waiting.has(hash) || existsSync(join(store(gitDir), hash)))) {
      const readAt = Date.now();
      const content = readFileSync(file);
      hash = createHash("sha256").update(content).digest("hex");
      if (!waiting.has(hash) && !existsSync(join(store(gitDir), hash))) waiting.set(hash, content);
      // Only a file last changed well before it was read: file times tick coarsely, so a file
      // changed again within the same tick would keep its stat data with other content (git's
      // "racy" entries). A time in whole seconds says the file system keeps no finer ones.
      const racyMs = info.mtimeNs % 1_000_000_000n === 0n ? COARSE_RACY_MS : RACY_MS;
      if (Number(info.ctimeMs) < readAt - racyMs) hashes.set(file, { stamp, hash });
      else hashes.delete(file);
    }
    manifest[path] = `${hash}:${(Number(info.mode) & 0o777).toString(8)}`;
  }
  // Written in the background from now on; a failure is met again by the write awaited before
  // the commit naming them.
  if (unwrittenOf(gitDir).size > 0) writeRecordedGitFiles(gitDir).catch(() => {});
  return manifest;
}

/**
 * How long before being read a file must have last changed for its stat data to vouch for its
 * content: well over a tick of the kernel's coarse clock (1 to 10 ms), which stamps file changes;
 * on a file system keeping whole seconds, over its own step (FAT's is 2 s).
 */
const RACY_MS = 50;
const COARSE_RACY_MS = 2_100;
/** The content hash of each code-running file last read, with the stat data it was read at. */
const hashes = new Map<string, { readonly stamp: string; readonly hash: string }>();
/** Contents recorded and not yet in their store, by store, by hash. */
const unwritten = new Map<string, Map<string, Buffer>>();

function unwrittenOf(gitDir: string): Map<string, Buffer> {
  let waiting = unwritten.get(store(gitDir));
  if (waiting === undefined) {
    waiting = new Map();
    unwritten.set(store(gitDir), waiting);
  }
  return waiting;
}

/** Each store's writes in progress, one after another. */
const writing = new Map<string, Promise<void>>();

/**
 * Writes the contents recordGitFiles kept for `gitDir`'s store (it starts this itself, off the
 * change's path): to be awaited before a checkpoint whose manifest names them is committed, and
 * before a restore reads the store. Rejects while a copy cannot be written.
 */
export function writeRecordedGitFiles(gitDir: string): Promise<void> {
  const key = store(gitDir);
  const next = (writing.get(key) ?? Promise.resolve()).catch(() => {}).then(() => writeWaiting(gitDir));
  writing.set(key, next);
  return next;
}

async function writeWaiting(gitDir: string): Promise<void> {
  const waiting = unwritten.get(store(gitDir));
  if (waiting === undefined || waiting.size === 0) return;
  await mkdir(store(gitDir), { recursive: true });
  await Promise.all(
    [...waiting].map(async ([hash, content]) => {
      // Written aside and renamed: a copy is never seen half-written, by this process or another.
      const kept = join(store(gitDir), hash);
      const part = `${kept}.${process.pid}.part`;
      await writeFile(part, content);
      await rename(part, kept);
      waiting.delete(hash);
    }),
  );
}

/** Whether two manifests record the same files (an absent manifest matches anything). */
export function sameGitFiles(a: GitFilesManifest | undefined, b: GitFilesManifest | undefined): boolean {
  if (a === undefined || b === undefined) return true;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * Puts the project's .git code-running files back as `manifest` recorded them: each recorded file
 * gets its content and mode, and a hook made since is removed. Nothing when there is no manifest
 * or the project has no .git folder now (a restored repository copy brings its own).
 */
export async function restoreGitFiles(
  root: string,
  gitDir: string,
  manifest: GitFilesManifest | undefined,
): Promise<void> {
  if (manifest === undefined) return;
  await writeRecordedGitFiles(gitDir);
  const dotGit = lstatSync(join(root, ".git"), { throwIfNoEntry: false });
  if (!dotGit?.isDirectory()) return;
  for (const [path, entry] of Object.entries(manifest)) {
    const [hash = "", mode = "644"] = entry.split(":");
    const content = await readFile(join(store(gitDir), hash));
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    // Removed first: the file may be a link the command planted in its place.
    await rm(file, { force: true });
    await writeFile(file, content, { mode: Number.parseInt(mode, 8) });
    await chmod(file, Number.parseInt(mode, 8));
  }
  const hooks = await readdir(join(root, HOOKS)).catch(() => [] as string[]);
  for (const name of hooks) {
    const path = `${HOOKS}/${name}`;
    if (manifest[path] !== undefined) continue;
    const info = lstatSync(join(root, path), { throwIfNoEntry: false });
    if (info?.isFile() || info?.isSymbolicLink()) await rm(join(root, path), { force: true });
  }
}
