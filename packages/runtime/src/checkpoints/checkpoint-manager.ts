import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isCodeRunningFile } from "@attractor/agent";
import {
  codeRunningPaths,
  type GitFilesManifest,
  recordGitFiles,
  restoreGitFiles,
  sameGitFiles,
  writeRecordedGitFiles,
} from "./code-running-copies.js";
import {
  CheckpointGitError,
  type GitRunOptions,
  type GitRunResult,
  runGit,
  runGitScript,
} from "./git-runner.js";
import { type PriorFile, readPriorFiles } from "./prior-files.js";
import { restoreRepositoryCopy, saveRepositoryCopy } from "./repository-copies.js";
import { initShadowRepository } from "./shadow-repository.js";
import { OVERLAY_SCRIPT, parseSnapshotOutput, SNAPSHOT_SCRIPT, STAGED_LINE } from "./snapshot-script.js";

/** One snapshot of the project, taken before a change. */
export interface Checkpoint {
  /** The shadow commit's hash. */
  readonly id: string;
  /** The snapshot's tree: equal trees mean equal project states. */
  readonly tree: string;
  readonly label: string;
  /** The user message during which the change was made; groups checkpoints for /rewind. */
  readonly userMessageId?: string;
  readonly toolName?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** The code-running files inside the project's .git (hooks, config) as they were, by content hash. */
  readonly gitFiles?: GitFilesManifest;
  /** What this checkpoint does not keep, for the user (ignored files over the copy's budget). */
  readonly notices?: readonly string[];
}

/** The checkpoints taken while answering one user message, oldest first. */
export interface CheckpointGroup {
  readonly userMessageId: string | undefined;
  readonly checkpoints: readonly Checkpoint[];
}

/** A file a restore would change, from the current state's point of view. */
export interface CheckpointFileChange {
  readonly path: string;
  /** modified: contents go back; created: the file is brought back; deleted: the file is removed. */
  readonly change: "modified" | "created" | "deleted";
}

/** What restoring a checkpoint would do. */
export interface CheckpointDiff {
  readonly checkpoint: Checkpoint;
  readonly files: readonly CheckpointFileChange[];
  /** Unified diff from the current state to the checkpoint's (binary files summarised by git). */
  readonly patch: string;
  readonly patchTruncated: boolean;
}

/** What a restore did. */
export interface RestoreResult {
  readonly restored: Checkpoint;
  readonly files: readonly CheckpointFileChange[];
  /** What the restore could not bring back, for the user (ignored files over the copy's budget). */
  readonly notices?: readonly string[];
}

export interface SnapshotOptions {
  readonly label: string;
  readonly userMessageId?: string;
  readonly toolName?: string;
  /**
   * Also keep a copy of the project's own git repository (.git), put back when this checkpoint
   * is restored: for changes whose effect cannot be read before they run (see repository-copies.ts).
   */
  readonly withRepository?: boolean;
}

export interface CheckpointManagerOptions {
  /** The project directory whose files are snapshotted. */
  readonly projectRoot: string;
  /** attractor's home; the shadow repository lives in `<home>/checkpoints/<hash of project path>`. */
  readonly home: string;
  /** Patterns never snapshotted nor touched, on top of the project's .gitignore files. */
  readonly extraExcludes?: readonly string[];
  /** Upper bound for a diff's patch text. */
  readonly maxPatchChars?: number;
}

/** Snapshots and restores a project through a shadow git repository that never touches the project's own .git. */
export interface CheckpointManager {
  /** The shadow git directory. */
  readonly gitDir: string;
  /** Creates the shadow repository now rather than at the first snapshot (nothing when it exists). */
  prepare(): Promise<void>;
  /**
   * Snapshots the project before a change. When nothing changed since the last checkpoint, that
   * checkpoint is returned and no commit is made, unless the last one was taken for another user
   * message: each message's first snapshot is a checkpoint of its own, so what came before a
   * message can be found in the history alone (after a restart too).
   */
  snapshot(options: SnapshotOptions): Promise<Checkpoint>;
  /**
   * Snapshots the project as `snapshot` does, but returns as soon as the project's state is read
   * (staged in git), before the checkpoint is committed: the change may start then. `committed`
   * settles when it is written (a failure after the state was read rejects it, never reads the
   * project again); every other operation here waits for it. With `withRepository`, returns once
   * everything, the repository's copy included, is written.
   */
  snapshotStaged(options: SnapshotOptions): Promise<{ readonly committed: Promise<Checkpoint> }>;
  /**
   * Snapshots the project before a change to exactly `paths` (relative to the project root or
   * absolute) and returns once their present state is recorded, in memory, without waiting on
   * the rest of the tree: the whole-tree checkpoint is written in the background, and every other
   * operation here waits for it. `committed` settles when it is written (with what `snapshot`
   * would have returned). Where the paths cannot be recorded on their own (a link, a nested
   * repository, a large file), this is a whole-tree snapshot taken before returning.
   */
  snapshotFiles(
    options: SnapshotOptions,
    paths: readonly string[],
    changeId?: string,
  ): Promise<{ readonly committed: Promise<Checkpoint> }>;
  /**
   * Says the change recorded under `changeId` is made: the background checkpoint reads the tree
   * only once no recorded change is still being made (or after a few seconds), so it never
   * records a file half-way through (an edit's temporary file, say).
   */
  changeMade(changeId: string): void;
  /** Waits until the checkpoints being written in the background are written. */
  flush(): Promise<void>;
  /** Every checkpoint, oldest first. */
  checkpoints(): Promise<Checkpoint[]>;
  /** Checkpoints grouped by user message, oldest first (for /rewind). */
  list(): Promise<CheckpointGroup[]>;
  /** What restoring `id` would change in the project now. */
  diff(id: string): Promise<CheckpointDiff>;
  /** Restores the project to checkpoint `id`; the state replaced is saved first and returned. */
  restore(id: string): Promise<RestoreResult>;
  /**
   * Restores the state before the last change: the newest checkpoint that differs from the
   * project now (older ones on repeated calls). Undefined when there is nothing to undo.
   */
  undo(): Promise<RestoreResult | undefined>;
}

const REF = "refs/heads/checkpoints";
/**
 * How long a recorded change waits before its whole-tree checkpoint is written: git runs off the
 * request that follows the change, and changes in quick succession share one staging pass.
 */
const BACKGROUND_DELAY_MS = 30;
/** The longest a background checkpoint waits for changes still being made. */
const OPEN_CHANGE_WAIT_MS = 5_000;
const SAVED_REF = "refs/attractor/before-restore";
const DEFAULT_EXCLUDES = [".git", "node_modules/"];
const FIELD = "\x1f";
const RECORD = "\x1e";

/** Creates the checkpoint manager of one project (the shadow repository is created on first use). */
export async function createCheckpointManager(options: CheckpointManagerOptions): Promise<CheckpointManager> {
  const root = await realpath(options.projectRoot);
  const gitDir = join(
    options.home,
    "checkpoints",
    createHash("sha256").update(root).digest("hex").slice(0, 24),
  );
  const git = (args: readonly string[], input?: string, maxOutput?: number) =>
    retryingWhileLocked(() =>
      runGit(gitDir, root, args, {
        ...(input !== undefined ? { input } : {}),
        ...(maxOutput !== undefined ? { maxOutput } : {}),
      }),
    );
  let ready: Promise<void> | undefined;
  // Operations run one at a time: they share the shadow index.
  let queue: Promise<unknown> = Promise.resolve();
  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };
  // Every operation first writes the checkpoints recorded before it, so none sees a history
  // without them.
  const serial = <T>(work: () => Promise<T>): Promise<T> =>
    queued(async () => {
      await writePending();
      return work();
    });
  /** Changes recorded by snapshotFiles whose checkpoints are not written yet, oldest first. */
  let pending: PendingCheckpoint[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Changes recorded and not yet reported made, by change id. */
  const open = new Map<string, { readonly made: Promise<void>; readonly resolve: () => void }>();
  /**
   * A file the background write in progress checks after staging: a change recorded meanwhile
   * creates it (synchronously, before the change is made), so the tree is read again.
   */
  let newerMarker: string | undefined;
  const changesMade = async () => {
    if (open.size === 0) return;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all([...open.values()].map((o) => o.made)),
      new Promise<void>((r) => {
        timeout = setTimeout(r, OPEN_CHANGE_WAIT_MS);
        timeout.unref?.();
      }),
    ]);
    clearTimeout(timeout);
  };
  /** Below this checkpoint index the next undo looks; reset by every new snapshot. */
  let undoCursor: number | undefined;
  /** The newest checkpoint as this process last saw it, so an unchanged snapshot need not read it again. */
  let head: Checkpoint | undefined;

  const ensureRepo = () => {
    ready ??= (async () => {
      try {
        await readFile(join(gitDir, "HEAD"));
        return;
      } catch {}
      await initShadowRepository(gitDir, root);
    })();
    ready.catch(() => {
      ready = undefined;
    });
    return ready;
  };

  /**
   * Writes info/exclude: our defaults, the caller's extras and the project's own
   * .git/info/exclude; not written again while it holds that text. Synchronous: two small files,
   * read before every snapshot, where a round trip through the thread pool costs more.
   */
  const syncExcludes = async () => {
    let userExclude = "";
    try {
      userExclude = readFileSync(join(root, ".git", "info", "exclude"), "utf8");
    } catch {}
    const text = [...DEFAULT_EXCLUDES, ...(options.extraExcludes ?? []), userExclude].join("\n");
    const file = join(gitDir, "info", "exclude");
    try {
      if (readFileSync(file, "utf8") === text) return;
    } catch {}
    await mkdir(join(gitDir, "info"), { recursive: true });
    await writeFile(file, text);
  };

  /**
   * Runs a snapshot script (see snapshot-script.ts). With `staging`, the script stages the project:
   * `seed` runs first at each run, and `onStaged` is called once the script has read the project.
   * A lock met before that is waited out and the script run again; after it, the project may be
   * changing, so the script is not run again: the failure is reported. Without `staging`, the
   * script only commits trees already written, and is run again while locked.
   */
  const runSnapshotScript = (
    script: string,
    run: GitRunOptions & { readonly env: Readonly<Record<string, string>> },
    staging?: { readonly onStaged: (() => void) | undefined; readonly seed: () => Promise<void> },
  ): Promise<GitRunResult> => {
    if (staging === undefined) return retryingWhileLocked(() => runGitScript(gitDir, root, script, run));
    let staged = false;
    const signal = {
      line: STAGED_LINE,
      reached: () => {
        staged = true;
        staging.onStaged?.();
      },
    };
    return retryingWhileLocked(
      async () => {
        await staging.seed();
        return runGitScript(gitDir, root, script, { ...run, signal });
      },
      () => !staged,
    );
  };

  /** Stages the project as it is now and returns its tree. */
  const currentTree = async (): Promise<string> => {
    await syncExcludes();
    const tolerateUnreadable = (error: unknown) => {
      // Unreadable files make `add` exit non-zero after staging everything else.
      if (!(error instanceof CheckpointGitError)) throw error;
      if (!/unable to (index|read|stat)|Permission denied|open\(/i.test(error.stderr)) throw error;
    };
    await git(["add", "--all", "--ignore-errors", "--", "."]).catch(tolerateUnreadable);
    // Code-running files are staged though ignored (see code-running-copies.ts).
    const codeRunning = codeRunningPaths(root);
    if (codeRunning.length > 0)
      await git(["add", "-f", "--all", "--ignore-errors", "--", ...codeRunning]).catch(tolerateUnreadable);
    return (await git(["write-tree"])).stdout.trim();
  };

  const readCheckpoints = async (): Promise<Checkpoint[]> => {
    try {
      await git(["rev-parse", "--verify", "--quiet", REF]);
    } catch {
      head = undefined;
      return [];
    }
    const { stdout } = await git(["log", "--reverse", `--format=%H${FIELD}%T${FIELD}%B${RECORD}`, REF]);
    const out: Checkpoint[] = [];
    for (const record of stdout.split(RECORD)) {
      const [id, tree, body] = record.replace(/^\n/, "").split(FIELD);
      if (!id || !tree) continue;
      out.push(parseMessage(id, tree, body ?? ""));
    }
    head = out.at(-1);
    return out;
  };

  const commit = async (tree: string, parent: string | undefined, meta: SnapshotOptions, ref: string) => {
    const message = checkpointMessage(meta);
    const { stdout } = await git(
      ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-F", "-"],
      message,
    );
    const id = stdout.trim();
    await git(["update-ref", ref, id]);
    return parseMessage(id, tree, message);
  };

  const changesBetween = async (from: string, to: string): Promise<CheckpointFileChange[]> => {
    const { stdout } = await git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to]);
    const parts = stdout.split("\0");
    const files: CheckpointFileChange[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const status = parts[i] as string;
      const path = parts[i + 1] as string;
      if (!status) continue;
      files.push({
        path,
        change: status.startsWith("A") ? "created" : status.startsWith("D") ? "deleted" : "modified",
      });
    }
    return files;
  };

  const find = async (id: string): Promise<Checkpoint> => {
    const all = await readCheckpoints();
    const hit = all.find((c) => c.id === id || (id.length >= 7 && c.id.startsWith(id)));
    if (!hit) throw new Error(`no checkpoint ${id}`);
    return hit;
  };

  const restoreTo = async (target: Checkpoint, nowTree: string) => {
    const files = await changesBetween(nowTree, target.tree);
    if (files.length > 0) {
      // Keep the replaced state reachable so a restore never loses work.
      let previous: string | undefined;
      try {
        previous = (await git(["rev-parse", "--verify", "--quiet", SAVED_REF])).stdout.trim() || undefined;
      } catch {}
      await commit(nowTree, previous, { label: `before restoring ${target.id.slice(0, 12)}` }, SAVED_REF);
      // The index holds the current state, so read-tree -u removes files absent from the target
      // and rewrites the others; ignored files are not in the index and stay untouched.
      await git(["read-tree", "--reset", "-u", target.tree]);
    }
    await restoreGitFiles(root, gitDir, target.gitFiles);
    const copy = await restoreRepositoryCopy(root, gitDir, target.id);
    return { restored: target, files, ...(copy.notices.length > 0 && { notices: copy.notices }) };
  };

  /** Takes a whole-tree snapshot; `onStaged` is called once the project is read (see snapshotStaged). */
  const snapshotNow = (meta: SnapshotOptions, onStaged?: () => void): Promise<Checkpoint> =>
    queued(async () => {
      if (pending.length > 0) {
        // The changes recorded before are written now, and the tree staged for them is this
        // snapshot's too: the project as it is, with no prior state laid over it.
        undoCursor = undefined;
        const { record, committed } = pendingCheckpoint(meta, [], recordGitFiles(root, gitDir));
        pending.push(record);
        await writePending(onStaged);
        return committed;
      }
      await ensureRepo();
      await syncExcludes();
      undoCursor = undefined;
      const gitFiles = recordGitFiles(root, gitDir);
      // The copies the manifest names are in the store before the checkpoint naming them is.
      await writeRecordedGitFiles(gitDir);
      const message = checkpointMessage(meta, gitFiles);
      // A change to a hook alone leaves the tree as it was: it still needs a checkpoint of its own.
      const newMessage = (last: Checkpoint | undefined) =>
        (meta.userMessageId !== undefined &&
          last !== undefined &&
          last.userMessageId !== meta.userMessageId) ||
        (last !== undefined && !sameGitFiles(last.gitFiles ?? {}, gitFiles));
      let force = newMessage(head);
      // Staged on an index of its own (seeded from the shared one, a cache of file stats): another
      // process staging into the shared one before write-tree, the project changing by then,
      // would change the tree.
      const dir = mkdtempSync(join(gitDir, "job-"));
      const jobIndex = join(dir, "index");
      /** The tree staged: retries commit it, never stage again (the project may be changing). */
      let tree: string | undefined;
      try {
        for (let attempt = 0; ; attempt++) {
          // The newest checkpoint as last seen spares the script reading it; a stale one is "raced".
          const lastSeen = attempt === 0 && head !== undefined ? `${head.id} ${head.tree}` : "";
          const env = {
            REF,
            KNOWN_HEAD: head?.id ?? "",
            FORCE: force ? "1" : "",
            LAST: lastSeen,
            ...(tree === undefined
              ? { GIT_INDEX_FILE: jobIndex, CODE_RUNNING: codeRunningPaths(root).join(" ") }
              : { TREE: tree }),
          };
          const { stdout } = await runSnapshotScript(
            SNAPSHOT_SCRIPT,
            { input: message, env },
            tree === undefined
              ? { onStaged, seed: () => copyFile(join(gitDir, "index"), jobIndex).catch(() => {}) }
              : undefined,
          );
          const outcome = parseSnapshotOutput(stdout);
          tree = outcome.tree;
          if (outcome.kind === "new") {
            head = parseMessage(outcome.id, outcome.tree, message);
            return head;
          }
          if (outcome.kind === "same") {
            if (outcome.body !== undefined || head?.id !== outcome.id) {
              head = parseMessage(outcome.id, outcome.tree, outcome.body ?? "");
            }
            // The newest checkpoint, read only now, belongs to another message: take one of its own.
            if (!newMessage(head)) return head as Checkpoint;
            force = true;
            continue;
          }
          // Another process moved the ref between our read and our update: commit the tree again.
          if (attempt >= 3) {
            throw new CheckpointGitError(
              ["update-ref", REF],
              1,
              "another process kept moving the checkpoints",
            );
          }
        }
      } finally {
        if (tree !== undefined) await rename(jobIndex, join(gitDir, "index")).catch(() => {});
        await rm(dir, { recursive: true, force: true });
      }
    });

  /** Writes the checkpoints of the changes recorded so far (see OVERLAY_SCRIPT). */
  const writePending = async (onStaged?: () => void): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length === 0) return;
    let records: PendingCheckpoint[] = [];
    try {
      await ensureRepo();
      await syncExcludes();
      for (let pass = 0; ; pass++) {
        records = [...records, ...pending];
        pending = [];
        // A change that began while git read the tree may have been half made: the tree is read
        // again once it is made (twice at most; its recorded prior state is laid over anyway).
        const trees = await writeTrees(records, pass < 2, onStaged);
        if (trees !== "again") {
          for (const [i, r] of records.entries()) r.settle.resolve(trees[i] as Checkpoint);
          return;
        }
        await changesMade();
      }
    } catch (error) {
      if (records.length === 0) [records, pending] = [pending, []];
      for (const r of records) r.settle.reject(error);
    }
  };

  /**
   * Stages the project and writes the records' checkpoints (OVERLAY_SCRIPT); "again" when a change
   * was recorded while git read the tree and `mayRepeat`, before anything is committed (and before
   * `onStaged` is called, once the project is read).
   */
  const writeTrees = async (
    records: readonly PendingCheckpoint[],
    mayRepeat: boolean,
    onStaged?: () => void,
  ): Promise<Checkpoint[] | "again"> => {
    // Inside the shadow repository: the job's index is renamed into place from there.
    // The job's files are written synchronously: a few small files, on the way to the first git
    // process, where each round trip through the thread pool costs more than the write.
    const dir = mkdtempSync(join(gitDir, "job-"));
    try {
      const env: Record<string, string> = {
        DIR: dir,
        REF,
        COUNT: String(records.length),
        CODE_RUNNING: codeRunningPaths(root).join(" "),
      };
      if (mayRepeat) {
        env.NEWER = join(dir, "newer");
        newerMarker = env.NEWER;
      }
      const existed = new Set<string>();
      let previous = head?.userMessageId;
      let previousGitFiles = head?.gitFiles;
      for (const [i, r] of records.entries()) {
        const k = i + 1;
        const tree = join(dir, `tree-${k}`);
        mkdirSync(tree);
        for (const f of r.files) {
          if (f.kind !== "file") continue;
          existed.add(f.path);
          const file = join(tree, ...f.path.split("/"));
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, f.content, { mode: f.executable ? 0o755 : 0o644 });
        }
        writeFileSync(join(dir, `paths-${k}`), r.files.map((f) => `${f.path}\0`).join(""));
        writeFileSync(join(dir, `msg-${k}`), r.message);
        // Each message's first checkpoint is its own, as snapshot() takes it.
        if (
          r.meta.userMessageId !== undefined &&
          (k > 1 || head !== undefined) &&
          previous !== r.meta.userMessageId
        )
          env[`FORCE_${k}`] = "1";
        // So does a change to a hook, which leaves the tree as it was.
        if ((k > 1 || head !== undefined) && !sameGitFiles(previousGitFiles ?? {}, r.gitFiles))
          env[`FORCE_${k}`] = "1";
        previous = r.meta.userMessageId;
        previousGitFiles = r.gitFiles;
      }
      // Ignored paths are dropped from the overlays, except code-running files, which are staged.
      const check = [...existed].filter((p) => !isCodeRunningFile(p));
      writeFileSync(join(dir, "check"), check.map((p) => `${p}\0`).join(""));
      // The copies the manifests name are in the store before the checkpoints naming them are.
      await writeRecordedGitFiles(gitDir);
      const jobIndex = join(dir, "index");
      for (let attempt = 0; ; attempt++) {
        env.LAST = attempt === 0 && head !== undefined ? `${head.id} ${head.tree}` : "";
        const out = await runSnapshotScript(
          OVERLAY_SCRIPT,
          { env },
          env.TREES === undefined
            ? {
                onStaged,
                // Seeded from the shared index, a cache of file stats (see OVERLAY_SCRIPT), at each run.
                seed: () => copyFile(join(gitDir, "index"), jobIndex).catch(() => {}),
              }
            : undefined,
        );
        const lines = out.stdout.trim().split("\n");
        if (lines.at(-1) === "again") return "again";
        if (lines.at(-1) !== "raced") {
          await rename(jobIndex, join(gitDir, "index")).catch(() => {});
          const before = (lines.at(-1) ?? "").slice("head ".length);
          const result: Checkpoint[] = [];
          let last: Checkpoint | undefined = head?.id === before ? head : undefined;
          for (const [i, r] of records.entries()) {
            const [id = "", tree = ""] = (lines[i] ?? "").split(" ");
            if (last?.id !== id) {
              // A commit of ours, or the newest checkpoint already there (another process's).
              const body = id === before ? (await git(["log", "-1", "--format=%B", id])).stdout : r.message;
              last = parseMessage(id, tree, body);
            }
            result.push(last);
          }
          head = last;
          return result;
        }
        // Another process moved the ref meanwhile: the trees written are committed again, since
        // the project may have changed since it was read.
        const trees = records.map((_, i) => (lines[i] ?? "").split(" ")[1] ?? "");
        if (!trees.every((t) => /^[0-9a-f]{40,64}$/.test(t)))
          throw new Error(`unexpected snapshot output: ${JSON.stringify(out.stdout.slice(0, 200))}`);
        env.TREES = trees.join(" ");
        if (attempt >= 3)
          throw new CheckpointGitError(["update-ref", REF], 1, "another process kept moving the checkpoints");
      }
    } finally {
      newerMarker = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  };

  /** snapshot(), and the copy of the project's repository when asked. */
  const snapshotWhole = async (meta: SnapshotOptions): Promise<Checkpoint> => {
    const checkpoint = await snapshotNow(meta);
    if (meta.withRepository)
      return queued(async () => {
        // Ignored files and directories (collapsed), which the shadow repository leaves out.
        const { stdout } = await git([
          "ls-files",
          "-z",
          "--others",
          "--ignored",
          "--exclude-standard",
          "--directory",
        ]);
        const ignored = stdout
          .split("\0")
          .filter(Boolean)
          .map((p) => p.replace(/\/$/, ""));
        const notices = await saveRepositoryCopy(root, gitDir, checkpoint.id, ignored);
        return notices.length > 0 ? { ...checkpoint, notices } : checkpoint;
      });
    return checkpoint;
  };

  return {
    gitDir,
    prepare: () => serial(ensureRepo),
    flush: () => serial(async () => {}),
    changeMade: (changeId) => {
      open.get(changeId)?.resolve();
      open.delete(changeId);
    },
    snapshotFiles: async (meta, paths, changeId) => {
      const files = readPriorFiles(options.projectRoot, root, paths);
      if (files === undefined) {
        const checkpoint = snapshotNow(meta);
        await checkpoint;
        return { committed: checkpoint };
      }
      undoCursor = undefined;
      const { record, committed } = pendingCheckpoint(meta, files, recordGitFiles(root, gitDir));
      pending.push(record);
      if (newerMarker !== undefined) {
        try {
          writeFileSync(newerMarker, "");
        } catch {}
      }
      if (changeId !== undefined && !open.has(changeId)) {
        let resolve!: () => void;
        const made = new Promise<void>((r) => {
          resolve = r;
        });
        open.set(changeId, { made, resolve });
      }
      // Kept referenced: a process that ends now still writes the checkpoint first.
      timer ??= setTimeout(() => {
        timer = undefined;
        void changesMade().then(() => queued(() => writePending()));
      }, BACKGROUND_DELAY_MS);
      return { committed };
    },
    snapshot: (meta) => snapshotWhole(meta),
    snapshotStaged: async (meta) => {
      if (meta.withRepository) {
        const checkpoint = await snapshotWhole(meta);
        return { committed: Promise.resolve(checkpoint) };
      }
      let staged!: () => void;
      const read = new Promise<void>((resolve) => {
        staged = resolve;
      });
      const committed = snapshotNow(meta, staged);
      committed.catch(() => {});
      // Rejects when the snapshot failed before the project was read.
      await Promise.race([read, committed]);
      return { committed };
    },
    checkpoints: () =>
      serial(async () => {
        await ensureRepo();
        return readCheckpoints();
      }),
    list: () =>
      serial(async () => {
        await ensureRepo();
        const groups: { userMessageId: string | undefined; checkpoints: Checkpoint[] }[] = [];
        for (const c of await readCheckpoints()) {
          const group = groups.at(-1);
          if (group && group.userMessageId === c.userMessageId) group.checkpoints.push(c);
          else groups.push({ userMessageId: c.userMessageId, checkpoints: [c] });
        }
        return groups;
      }),
    diff: (id) =>
      serial(async () => {
        await ensureRepo();
        const checkpoint = await find(id);
        const nowTree = await currentTree();
        const files = await changesBetween(nowTree, checkpoint.tree);
        const limit = options.maxPatchChars ?? 2_000_000;
        const { stdout, truncated } = await git(
          ["diff-tree", "-p", "--no-color", "--no-ext-diff", "--no-renames", nowTree, checkpoint.tree],
          undefined,
          limit,
        );
        return { checkpoint, files, patch: stdout, patchTruncated: truncated };
      }),
    restore: (id) =>
      serial(async () => {
        await ensureRepo();
        const target = await find(id);
        const result = await restoreTo(target, await currentTree());
        const all = await readCheckpoints();
        undoCursor = all.findIndex((c) => c.id === target.id);
        return result;
      }),
    undo: () =>
      serial(async () => {
        await ensureRepo();
        const all = await readCheckpoints();
        const nowTree = await currentTree();
        const start = Math.min(undoCursor ?? all.length, all.length) - 1;
        for (let i = start; i >= 0; i--) {
          const candidate = all[i] as Checkpoint;
          if (candidate.tree === nowTree && sameGitFiles(candidate.gitFiles, recordGitFiles(root, gitDir)))
            continue;
          const result = await restoreTo(candidate, nowTree);
          undoCursor = i;
          return result;
        }
        return undefined;
      }),
  };
}

/** A change recorded by snapshotFiles, waiting for its whole-tree checkpoint. */
interface PendingCheckpoint {
  readonly meta: SnapshotOptions;
  readonly message: string;
  readonly gitFiles: GitFilesManifest | undefined;
  readonly files: readonly PriorFile[];
  readonly settle: { readonly resolve: (c: Checkpoint) => void; readonly reject: (e: unknown) => void };
}

/** A change to record, and the promise of its checkpoint (whose failure is reported there alone). */
function pendingCheckpoint(
  meta: SnapshotOptions,
  files: readonly PriorFile[],
  gitFiles: GitFilesManifest | undefined,
): { record: PendingCheckpoint; committed: Promise<Checkpoint> } {
  let settle!: PendingCheckpoint["settle"];
  const committed = new Promise<Checkpoint>((resolve, reject) => {
    settle = { resolve, reject };
  });
  committed.catch(() => {});
  return { record: { meta, message: checkpointMessage(meta, gitFiles), files, gitFiles, settle }, committed };
}

function parseMessage(id: string, tree: string, body: string): Checkpoint {
  const [label = "", ...rest] = body.split("\n");
  let meta: { userMessageId?: string; toolName?: string; createdAt?: string; gitFiles?: GitFilesManifest } =
    {};
  try {
    meta = JSON.parse(rest.join("\n").trim() || "{}");
  } catch {}
  return {
    id,
    tree,
    label,
    ...(meta.userMessageId !== undefined ? { userMessageId: meta.userMessageId } : {}),
    ...(meta.toolName !== undefined ? { toolName: meta.toolName } : {}),
    createdAt: meta.createdAt ?? "",
    ...(meta.gitFiles !== undefined && { gitFiles: meta.gitFiles }),
  };
}

/** The commit message of a checkpoint: its label, then its metadata as JSON. */
function checkpointMessage(meta: SnapshotOptions, gitFiles?: GitFilesManifest): string {
  const createdAt = new Date().toISOString();
  return `${meta.label}\n\n${JSON.stringify({ userMessageId: meta.userMessageId, toolName: meta.toolName, createdAt, gitFiles })}\n`;
}

/**
 * Another process holding the shadow index lock is waited for briefly, and `run` run again while
 * `mayRunAgain` says so (a script that has read the project must not read it again).
 */
async function retryingWhileLocked(
  run: () => Promise<GitRunResult>,
  mayRunAgain: () => boolean = () => true,
): Promise<GitRunResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (
        attempt < 20 &&
        error instanceof CheckpointGitError &&
        /index\.lock|\.lock': File exists/.test(error.stderr)
      ) {
        if (!mayRunAgain())
          throw new CheckpointGitError(
            error.args,
            error.exitCode,
            `${error.stderr.trim()}\nthe checkpoint is not written: the project was read before the change began and is not read again once it may be changing`,
          );
        await new Promise((r) => setTimeout(r, 50 + attempt * 25));
        continue;
      }
      throw error;
    }
  }
}
