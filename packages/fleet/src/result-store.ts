import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TaskOutcome } from "./run-task.js";

/**
 * What a finished attempt left in the result store: the outcome without its bulky parts (those
 * are files beside it), plus where it ran and how many attempts the task took.
 */
export interface StoredResult {
  readonly id: string;
  readonly run: string;
  readonly status: "completed" | "failed" | "cancelled";
  readonly attempts: number;
  readonly result: string;
  readonly usage: Record<string, number>;
  readonly cost_usd: number | null;
  readonly turns: number;
  readonly duration_ms: number;
  readonly session_id?: string;
  readonly error?: string;
  readonly finished_at: string;
  /** The isolation the attempt ran under, as the worker saw it. */
  readonly isolation?: string;
  /** The branch the changes were pushed to (a task with `output`). */
  readonly branch?: string;
  /** The pull request opened for them. */
  readonly pull_request?: string;
}

/** The store's directory in force: given, else ATTRACTOR_FLEET_STORE, else `fleet` under the attractor home. */
export function storeDir(
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return (
    given ??
    env.ATTRACTOR_FLEET_STORE ??
    join(env.ATTRACTOR_HOME ?? join(env.HOME ?? homedir(), ".attractor"), "fleet")
  );
}

/** A file name for any task id: readable, never a path, distinct ids never collide. */
function safeName(id: string): string {
  const readable = id
    .replace(/[^\w.-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 80);
  return `${readable}-${createHash("sha256").update(id).digest("hex").slice(0, 10)}`;
}

/** Writes a file whole or not at all: readers never see half of it. */
async function writeWhole(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Where a task's files live in a store. */
export function taskDir(store: string, queue: string, id: string): string {
  return join(store, queue, "tasks", safeName(id));
}

/** Writes a finished attempt's result, patch, transcript and log; resolves to its directory. */
export async function storeResult(
  store: string,
  queue: string,
  result: StoredResult,
  outcome: Pick<TaskOutcome, "patch" | "transcript"> & { readonly log?: string },
): Promise<string> {
  const dir = taskDir(store, queue, result.id);
  await mkdir(dir, { recursive: true });
  await writeWhole(join(dir, "patch"), outcome.patch);
  if (outcome.transcript !== undefined) await writeWhole(join(dir, "transcript.jsonl"), outcome.transcript);
  if (outcome.log !== undefined) await writeWhole(join(dir, "log"), outcome.log);
  // The result goes last: its presence says the rest is there.
  await writeWhole(join(dir, "result.json"), `${JSON.stringify(result)}\n`);
  return dir;
}

/** A task's stored result, or undefined when the store has none. */
export async function readStoredResult(
  store: string,
  queue: string,
  id: string,
): Promise<StoredResult | undefined> {
  const text = await readFile(join(taskDir(store, queue, id), "result.json"), "utf8").catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as StoredResult);
}

/** One stored file of a task (`patch`, `transcript.jsonl`, `log`), or undefined. */
export function readStoredFile(
  store: string,
  queue: string,
  id: string,
  name: "patch" | "transcript.jsonl" | "log",
): Promise<string | undefined> {
  return readFile(join(taskDir(store, queue, id), name), "utf8").catch(() => undefined);
}

/** Removes a task's files from the store. */
export function removeStored(store: string, queue: string, id: string): Promise<void> {
  return rm(taskDir(store, queue, id), { recursive: true, force: true });
}

/** Writes a run's manifest into the store (the copy that outlives Redis). */
export async function storeRunManifest(
  store: string,
  queue: string,
  manifest: { id: string },
): Promise<void> {
  const dir = join(store, queue, "runs");
  await mkdir(dir, { recursive: true });
  await writeWhole(join(dir, `${safeName(manifest.id)}.json`), `${JSON.stringify(manifest)}\n`);
}

/** Every run manifest the store holds for a queue. */
export async function storedRunManifests<T>(store: string, queue: string): Promise<T[]> {
  const dir = join(store, queue, "runs");
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: T[] = [];
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    const text = await readFile(join(dir, name), "utf8").catch(() => undefined);
    if (text !== undefined) out.push(JSON.parse(text) as T);
  }
  return out;
}

/** Removes a run's manifest from the store (and the latest-run note, when it names that run). */
export async function removeStoredRun(store: string, queue: string, runId: string): Promise<void> {
  await rm(join(store, queue, "runs", `${safeName(runId)}.json`), { force: true });
  if ((await readLatestRun(store, queue))?.id === runId)
    await rm(join(store, queue, "latest-run.json"), { force: true });
}

/** The run a store saw submitted last: its id and creation time. */
export interface LatestRun {
  readonly id: string;
  readonly created_at: string;
}

/**
 * Notes a run as the store's latest unless a newer one is noted, so that finding the latest run
 * reads one small file rather than every manifest.
 */
export async function storeLatestRun(store: string, queue: string, run: LatestRun): Promise<void> {
  const current = await readLatestRun(store, queue);
  if (current !== undefined && current.created_at > run.created_at) return;
  await mkdir(join(store, queue), { recursive: true });
  await writeWhole(
    join(store, queue, "latest-run.json"),
    `${JSON.stringify({ id: run.id, created_at: run.created_at })}\n`,
  );
}

/** The store's latest run, or undefined when none is noted (a store older than the note, or cleaned). */
export async function readLatestRun(store: string, queue: string): Promise<LatestRun | undefined> {
  const text = await readFile(join(store, queue, "latest-run.json"), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as LatestRun;
    return typeof value.id === "string" && typeof value.created_at === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a run's manifest from the store, or undefined. */
export async function readStoredRunManifest<T>(
  store: string,
  queue: string,
  runId: string,
): Promise<T | undefined> {
  const text = await readFile(join(store, queue, "runs", `${safeName(runId)}.json`), "utf8").catch(
    () => undefined,
  );
  return text === undefined ? undefined : (JSON.parse(text) as T);
}
