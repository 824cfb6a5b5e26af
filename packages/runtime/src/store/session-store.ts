import { createHash, randomUUID } from "node:crypto";
import { fdatasync, writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { createScrubber, secretValuesFromEnv } from "./scrub.js";
import {
  activeBranch,
  readTranscript,
  type SessionHeader,
  type Transcript,
  type TranscriptEntry,
} from "./transcript.js";
import { unpackTurn } from "./turn-codec.js";

/** A session as /resume lists it. */
export interface SessionSummary {
  readonly sessionId: string;
  readonly path: string;
  readonly projectDir: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The first user message, shortened to 200 characters; undefined when none was sent yet. */
  readonly firstUserMessage?: string;
}

/** Appends entries to one transcript. */
export interface SessionWriter {
  readonly sessionId: string;
  readonly path: string;
  /** The id of the last entry written (the parent of the next). */
  readonly lastId: string | null;
  /**
   * Appends one entry with one write() before returning, so a killed process keeps it; the
   * returned promise rejects if that write failed. Entries are written in call order; secrets are
   * scrubbed first. `parentId` defaults to the last entry. When durable, an fdatasync follows
   * within SYNC_DELAY_MS, shared by every entry written meanwhile.
   */
  append(
    type: string,
    data?: Readonly<Record<string, unknown>>,
    options?: { parentId?: string | null },
  ): Promise<TranscriptEntry>;
  /** Resolves once every entry appended so far is on the disk (fdatasync), durable or not. */
  sync(): Promise<void>;
  /** Syncs what was written, then closes the file. */
  close(): Promise<void>;
}

export interface SessionStoreOptions {
  /** attractor's home; transcripts go to `<home>/sessions/<encoded project dir>/`. */
  readonly home: string;
  /**
   * Sync the transcript to the disk (fdatasync) within SYNC_DELAY_MS of each entry, one sync for
   * all entries written meanwhile (default true): guards against a power cut as well as a killed
   * process. Off, entries reach the disk when the kernel writes them back (and on close).
   */
  readonly durable?: boolean;
  /** Secret values never to write; by default those of process.env's `*_API_KEY`-like variables. */
  readonly secrets?: readonly string[];
}

export interface SessionStore {
  /** Starts a new transcript for a project. */
  create(projectDir: string, meta?: Readonly<Record<string, unknown>>): Promise<SessionWriter>;
  /** Reopens a transcript to append to it (after --resume / --continue). */
  openForAppend(sessionId: string, projectDir?: string): Promise<SessionWriter>;
  /** Loads a session by id (searched in every project when projectDir is absent). */
  load(sessionId: string, projectDir?: string): Promise<Transcript>;
  /** The most recently updated session of a project (--continue), or undefined. */
  latest(projectDir: string): Promise<SessionSummary | undefined>;
  /** A project's sessions, most recently updated first (/resume). */
  list(projectDir: string): Promise<SessionSummary[]>;
}

/** A session id or path that names no transcript. */
export class SessionNotFoundError extends Error {
  override readonly name = "SessionNotFoundError";
  constructor(readonly sessionId: string) {
    super(`no stored session ${JSON.stringify(sessionId)}`);
  }
}

/**
 * How long after an entry is written its transcript is synced to the disk, at most: entries
 * written meanwhile share one fdatasync, and no model request waits for it.
 */
export const SYNC_DELAY_MS = 100;

/** Writes all of `text` to `fd` (appending: the file is opened with O_APPEND). */
function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

const datasync = (fd: number): Promise<void> =>
  new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));

/** The directory name of a project's sessions: readable tail plus a hash against collisions. */
export function encodeProjectDir(projectDir: string): string {
  const absolute = resolve(projectDir);
  const readable = absolute
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(-60);
  const hash = createHash("sha256").update(absolute).digest("hex").slice(0, 8);
  return `${readable || "root"}-${hash}`;
}

/** Creates a store of JSONL transcripts under `<home>/sessions`. */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const sessionsDir = join(options.home, "sessions");
  const scrub = createScrubber(options.secrets ?? secretValuesFromEnv());
  const durable = options.durable ?? true;
  const projectDirOf = (projectDir: string) => join(sessionsDir, encodeProjectDir(projectDir));

  const findPath = async (sessionId: string, projectDir?: string): Promise<string> => {
    if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw new SessionNotFoundError(sessionId);
    const file = `${sessionId}.jsonl`;
    const dirs = projectDir
      ? [projectDirOf(projectDir)]
      : (await readdir(sessionsDir).catch(() => [] as string[])).map((d) => join(sessionsDir, d));
    for (const dir of dirs) {
      const candidate = join(dir, file);
      if (
        await stat(candidate).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        return candidate;
    }
    throw new SessionNotFoundError(sessionId);
  };

  const writer = async (
    path: string,
    sessionId: string,
    lastId: string | null,
    needsNewline: boolean,
  ): Promise<SessionWriter> => {
    const handle: FileHandle = await open(path, "a");
    let last = lastId;
    let separator = needsNewline ? "\n" : "";
    let closed = false;
    // Group commit: entries are written at once, synced together off the request path.
    let dirty = false;
    let timer: NodeJS.Timeout | undefined;
    let syncing: Promise<void> = Promise.resolve();
    // A background sync's failure, reported by the next append.
    let syncFailure: unknown;
    const sync = (): Promise<void> => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (!dirty) return syncing;
      dirty = false;
      // A failed sync does not stop later ones: each reports its own outcome.
      syncing = syncing.catch(() => {}).then(() => datasync(handle.fd));
      return syncing;
    };
    const append: SessionWriter["append"] = (type, data = {}, appendOptions = {}) => {
      if (closed) return Promise.reject(new Error(`session ${sessionId} is closed`));
      const entry = {
        ...(scrub(data) as Record<string, unknown>),
        id: randomUUID(),
        parentId: appendOptions.parentId !== undefined ? appendOptions.parentId : last,
        type,
        timestamp: new Date().toISOString(),
      } as TranscriptEntry;
      last = entry.id;
      // One synchronous write per entry, done when append returns: a killed process keeps every
      // entry appended before it died (the kernel holds the data), at worst a torn last line.
      const line = `${separator}${JSON.stringify(entry)}\n`;
      separator = "";
      try {
        writeWhole(handle.fd, line);
      } catch (error) {
        // Part of the line may be in the file: the next entry starts on a line of its own.
        separator = "\n";
        return Promise.reject(error);
      }
      dirty = true;
      if (syncFailure !== undefined) {
        const failure = syncFailure;
        syncFailure = undefined;
        return Promise.reject(failure);
      }
      if (durable && timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          sync().catch((error: unknown) => {
            syncFailure = error;
          });
        }, SYNC_DELAY_MS);
        // The close() of an ending process syncs; the timer need not keep it alive.
        timer.unref();
      }
      return Promise.resolve(entry);
    };
    return {
      sessionId,
      path,
      get lastId() {
        return last;
      },
      append,
      sync,
      async close() {
        if (closed) return;
        closed = true;
        try {
          await sync();
        } finally {
          await handle.close();
        }
      },
    };
  };

  const summarize = async (path: string): Promise<SessionSummary | undefined> => {
    const info = await stat(path).catch(() => undefined);
    if (!info) return undefined;
    const transcript = await readTranscript(path, { stopAfter: (e) => firstUserText(e) !== undefined });
    const first = transcript.entries.map(firstUserText).find((t) => t !== undefined);
    const header = transcript.header;
    return {
      sessionId: header?.sessionId ?? basename(path, ".jsonl"),
      path,
      projectDir: header?.projectDir ?? "",
      createdAt: header?.timestamp ?? info.birthtime.toISOString(),
      updatedAt: info.mtime.toISOString(),
      ...(first !== undefined
        ? { firstUserMessage: first.length > 200 ? `${first.slice(0, 199)}…` : first }
        : {}),
    };
  };

  const list = async (projectDir: string): Promise<SessionSummary[]> => {
    const dir = projectDirOf(projectDir);
    const names = await readdir(dir).catch(() => [] as string[]);
    const summaries = await Promise.all(
      names.filter((n) => n.endsWith(".jsonl")).map((n) => summarize(join(dir, n))),
    );
    return summaries
      .filter((s): s is SessionSummary => s !== undefined)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  };

  return {
    async create(projectDir, meta = {}) {
      const dir = projectDirOf(projectDir);
      await mkdir(dir, { recursive: true });
      const sessionId = `${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${randomUUID().slice(0, 8)}`;
      const w = await writer(join(dir, `${sessionId}.jsonl`), sessionId, null, false);
      await w.append("session", {
        ...meta,
        sessionId,
        projectDir: resolve(projectDir),
        version: 1,
      } satisfies Partial<SessionHeader>);
      return w;
    },
    async openForAppend(sessionId, projectDir) {
      const path = await findPath(sessionId, projectDir);
      const transcript = await readTranscript(path);
      // A torn last line has no newline; start the next entry on a line of its own.
      const handle = await open(path, "r");
      let needsNewline = false;
      try {
        const size = (await handle.stat()).size;
        if (size > 0) {
          const buffer = Buffer.alloc(1);
          await handle.read(buffer, 0, 1, size - 1);
          needsNewline = buffer[0] !== 0x0a;
        }
      } finally {
        await handle.close();
      }
      const lastId = transcript.entries.at(-1)?.id ?? transcript.header?.id ?? null;
      return writer(path, sessionId, lastId, needsNewline);
    },
    async load(sessionId, projectDir) {
      return readTranscript(await findPath(sessionId, projectDir));
    },
    async latest(projectDir) {
      return (await list(projectDir))[0];
    },
    list,
  };
}

/** The text of a user message entry: `{type:"turn", turn:{kind:"user", content}}` or `{type:"user", content}`. */
export function firstUserText(entry: TranscriptEntry): string | undefined {
  const turn =
    entry.type === "turn" ? (entry.turn as { kind?: unknown; content?: unknown } | undefined) : undefined;
  if (turn?.kind === "user" && typeof turn.content === "string") return turn.content;
  if (entry.type === "user" && typeof entry.content === "string") return entry.content;
  return undefined;
}

/** The `turn` payloads of `type: "turn"` entries on the active branch, for Session.fromHistory. */
export function turnsOf<T = unknown>(transcript: Transcript): T[] {
  return activeBranch(transcript.entries)
    .filter((e) => e.type === "turn" && e.turn !== undefined)
    .map((e) => unpackTurn(e.turn) as T);
}
