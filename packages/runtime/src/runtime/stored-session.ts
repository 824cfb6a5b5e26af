import type { Turn } from "@attractor/agent";
import type { SafetyTier } from "../permissions/index.js";
import {
  activeBranch,
  firstUserText,
  SessionNotFoundError,
  type SessionStore,
  type Transcript,
  type TranscriptEntry,
  unpackTurn,
} from "../store/index.js";
import { SessionSelectionError } from "./errors.js";
import type { EntryRef } from "./history-recorder.js";
import { restoreHistory } from "./stored-history.js";

/** An "always allow" answer stored in a transcript. */
export interface StoredGrant {
  readonly rule: string;
  readonly tier: SafetyTier;
}

/** What a runtime continues from when it resumes a transcript. */
export interface StoredSession {
  readonly sessionId: string;
  /** The history, repaired so the next model call is valid. */
  readonly turns: readonly Turn[];
  /** How many of `turns` the transcript already holds (repairs at the end are not written yet). */
  readonly written: number;
  /** Where each of `turns` is in the transcript; undefined for a repair not written yet. */
  readonly entries: readonly (EntryRef | undefined)[];
  /** The header entry's id, the root a rewritten (compacted) history branches from. */
  readonly rootId: string | null;
  readonly grants: readonly StoredGrant[];
  /** User message texts by transcript entry id (checkpoint groups name messages by it). */
  readonly userMessages: ReadonlyMap<string, string>;
  /** Problems found while reading and repairing, for the user. */
  readonly warnings: readonly string[];
}

/** Reads what a transcript holds for a session to continue from. */
export function readStoredSession(transcript: Transcript): StoredSession {
  const sessionId =
    transcript.header?.sessionId ?? (transcript.path.split("/").at(-1) ?? "").replace(/\.jsonl$/, "");
  const branch = activeBranch(transcript.entries).filter((e) => e.type === "turn" && e.turn !== undefined);
  const { turns, warnings, origins } = restoreHistory(branch.map((e) => unpackTurn(e.turn)));
  const byId = new Map(transcript.entries.map((e) => [e.id, e]));
  const entries = origins.map((origin) => {
    const entry = origin === undefined ? undefined : branch[origin];
    return entry && { id: entry.id, parentId: entry.parentId, aliases: replacedIds(entry, byId) };
  });
  const grants: StoredGrant[] = [];
  const userMessages = new Map<string, string>();
  for (const entry of transcript.entries) {
    if (entry.type === "permission_grant" && Array.isArray(entry.rules)) {
      const tier = (typeof entry.tier === "string" ? entry.tier : "none") as SafetyTier;
      for (const rule of entry.rules) if (typeof rule === "string") grants.push({ rule, tier });
    }
    const text = firstUserText(entry);
    if (text !== undefined) userMessages.set(entry.id, text);
  }
  return {
    sessionId,
    turns,
    written: Math.min(branch.length, turns.length),
    entries,
    rootId: transcript.header?.id ?? null,
    grants,
    userMessages,
    warnings: [...transcript.warnings.map((w) => w.message), ...warnings].map((w) => `${sessionId}: ${w}`),
  };
}

/** The ids of the entries `entry` replaced, newest first (a compaction rewrites a branch). */
function replacedIds(entry: TranscriptEntry, byId: ReadonlyMap<string, TranscriptEntry>): string[] {
  const ids: string[] = [];
  let next = entry.replaces;
  while (typeof next === "string" && !ids.includes(next)) {
    ids.push(next);
    next = byId.get(next)?.replaces;
  }
  return ids;
}

/** Loads a project's stored session by id; SessionSelectionError when there is none. */
export async function loadSession(
  store: SessionStore,
  projectDir: string,
  sessionId: string,
): Promise<Transcript> {
  try {
    return await store.load(sessionId, projectDir);
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    throw new SessionSelectionError(
      `No stored session "${sessionId}" for ${projectDir}.`,
      "Run `attractor --resume` without an id to list this directory's sessions.",
    );
  }
}

/** The transcript --resume or --continue names, or undefined for a new session. */
export async function selectStoredSession(
  store: SessionStore,
  projectDir: string,
  options: { readonly resume?: string; readonly continueLatest?: boolean },
): Promise<Transcript | undefined> {
  if (options.resume !== undefined) return loadSession(store, projectDir, options.resume);
  if (!options.continueLatest) return undefined;
  const latest = await store.latest(projectDir);
  if (!latest) {
    throw new SessionSelectionError(
      `No stored session to continue for ${projectDir}.`,
      "Start one without --continue.",
    );
  }
  return store.load(latest.sessionId, projectDir);
}
