import { EnvironmentError } from "../../environment/errors.js";
import type { ExecutionEnvironment } from "../../types/environment.js";
import { decodeUtf8 } from "../shared/text-file.js";
import { applyChunks, type HunkNote } from "./apply-chunks.js";
import { LAYER_NAMES } from "./layers.js";
import { parsePatch } from "./parser.js";
import { type ParsedPatch, PatchApplyError } from "./types.js";

/** One file a patch changes, as the summary reports it. */
export interface PatchFileChange {
  /** A = added, M = modified (possibly moved), D = deleted. */
  readonly status: "A" | "M" | "D";
  /** The path as written in the patch (the destination for a move). */
  readonly path: string;
  readonly movedFrom?: string;
  /** Content before (undefined for an added file) and after (undefined for a deleted one). */
  readonly before?: string;
  readonly after?: string;
  /** An existing file at `path` was replaced (Add File over it, or Move to onto it), as codex does. */
  readonly replaced?: boolean;
  /** Hunks that were not an exact match where their @@ lines lead, and how each was placed. */
  readonly fuzzy?: readonly HunkNote[];
}

export interface PatchResult {
  readonly changes: readonly PatchFileChange[];
}

/** What a path holds while the patch is being checked: text, or nothing (absent/deleted). */
type Slot = { readonly content: string | undefined };

/**
 * Checks a parsed patch against the files and computes every new content in memory, writing
 * nothing. As in codex, Add File over an existing file and Move to onto an existing file replace
 * it (the change says so); Delete or Update of a missing file is an error. Operations see the
 * effect of earlier ones in the same patch.
 */
export async function planPatch(patch: ParsedPatch, env: ExecutionEnvironment): Promise<PatchResult> {
  return (await plan(patch, env)).result;
}

interface Plan {
  readonly result: PatchResult;
  /** The bytes of every path the patch names before it ran (undefined: absent), by resolved path. */
  readonly originals: ReadonlyMap<string, Uint8Array | undefined>;
}

async function plan(patch: ParsedPatch, env: ExecutionEnvironment): Promise<Plan> {
  const state = new Map<string, Slot>();
  const originals = new Map<string, Uint8Array | undefined>();
  const load = async (path: string): Promise<string | undefined> => {
    const key = env.resolvePath(path);
    const known = state.get(key);
    if (known !== undefined) return known.content;
    const s = await env.stat(path);
    if (s === undefined) {
      state.set(key, { content: undefined });
      originals.set(key, undefined);
      return undefined;
    }
    if (s.isDirectory) throw new PatchApplyError(path, `${path} is a directory, not a file.`);
    const bytes = await env.readFileBytes(path);
    const content = decodeUtf8(bytes, path);
    state.set(key, { content });
    originals.set(key, bytes);
    return content;
  };
  const set = (path: string, content: string | undefined): void => {
    state.set(env.resolvePath(path), { content });
  };

  const changes: PatchFileChange[] = [];
  for (const op of patch.operations) {
    const before = await load(op.path);
    if (op.kind === "add") {
      set(op.path, op.content);
      changes.push(
        before === undefined
          ? { status: "A", path: op.path, after: op.content }
          : { status: "A", path: op.path, before, after: op.content, replaced: true },
      );
    } else if (op.kind === "delete") {
      if (before === undefined)
        throw new PatchApplyError(op.path, `Cannot delete ${op.path}: the file does not exist.`);
      set(op.path, undefined);
      changes.push({ status: "D", path: op.path, before });
    } else {
      if (before === undefined)
        throw new PatchApplyError(op.path, `Cannot update ${op.path}: the file does not exist.`);
      // A rename with no hunk keeps the bytes as they are.
      const { content, fuzzy } =
        op.chunks.length === 0 ? { content: before, fuzzy: [] } : applyChunks(before, op.chunks, op.path);
      const moving = op.moveTo !== undefined && env.resolvePath(op.moveTo) !== env.resolvePath(op.path);
      if (op.moveTo !== undefined && moving) {
        const replaced = (await load(op.moveTo)) !== undefined;
        set(op.path, undefined);
        set(op.moveTo, content);
        changes.push({
          status: "M",
          path: op.moveTo,
          movedFrom: op.path,
          before,
          after: content,
          fuzzy,
          ...(replaced && { replaced }),
        });
      } else {
        set(op.path, content);
        changes.push({ status: "M", path: op.path, before, after: content, fuzzy });
      }
    }
  }
  return { result: { changes }, originals };
}

/**
 * Parses and applies a v4a patch: every hunk is checked before anything is written, then the
 * files are written (atomically each); if a write fails, files already written are restored.
 * Throws PatchParseError, PatchApplyError or EnvironmentError with nothing changed.
 */
export async function applyPatch(text: string, env: ExecutionEnvironment): Promise<PatchResult> {
  const planned = await plan(parsePatch(text), env);
  await commit(planned, env);
  return planned.result;
}

interface FinalState {
  readonly path: string;
  readonly content: string | undefined;
}

async function commit({ result, originals }: Plan, env: ExecutionEnvironment): Promise<void> {
  // The last state of each path wins (a patch may touch a file twice).
  const finals = new Map<string, FinalState>();
  for (const change of result.changes) {
    if (change.movedFrom !== undefined) {
      finals.set(env.resolvePath(change.movedFrom), { path: change.movedFrom, content: undefined });
    }
    finals.set(env.resolvePath(change.path), {
      path: change.path,
      content: change.status === "D" ? undefined : change.after,
    });
  }
  // Writes before deletes, so a move never leaves the content nowhere.
  const ordered = [...finals].sort(
    ([, a], [, b]) => Number(a.content === undefined) - Number(b.content === undefined),
  );
  const done: [string, FinalState][] = [];
  for (const entry of ordered) {
    const [, final] = entry;
    try {
      if (final.content === undefined) {
        if (originals.get(entry[0]) !== undefined) await env.deleteFile(final.path);
      } else {
        await env.writeFile(final.path, final.content);
      }
    } catch (err) {
      await rollback(done, originals, env);
      const reason = err instanceof Error ? err.message : String(err);
      throw new PatchApplyError(
        final.path,
        `${final.content === undefined ? "Deleting" : "Writing"} ${final.path} failed (${reason})${done.length > 0 ? "; the files written before it were restored" : ""}.`,
      );
    }
    done.push(entry);
  }
}

async function rollback(
  done: readonly [string, FinalState][],
  originals: ReadonlyMap<string, Uint8Array | undefined>,
  env: ExecutionEnvironment,
): Promise<void> {
  for (const [key, final] of [...done].reverse()) {
    const original = originals.get(key);
    try {
      if (original === undefined) await env.deleteFile(final.path);
      else await env.writeFile(final.path, original);
    } catch (err) {
      // Best effort: the caller reports the first failure; a failed restore is not hidden.
      if (!(err instanceof EnvironmentError)) throw err;
    }
  }
}

/** The codex-style summary: one `A|M|D path` line per file, with a note on each hunk that was not an exact match. */
export function formatPatchSummary(result: PatchResult): string {
  const lines = ["Success. Updated the following files:"];
  for (const change of result.changes) {
    const notes = [
      ...(change.movedFrom !== undefined ? [`moved from ${change.movedFrom}`] : []),
      ...(change.replaced === true ? ["replaced the file that was there"] : []),
    ];
    lines.push(`${change.status} ${change.path}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`);
  }
  for (const change of result.changes) {
    for (const f of change.fuzzy ?? []) {
      if (f.tolerance !== "exact") {
        const how = f.indentation === undefined ? "" : ` (${f.indentation})`;
        lines.push(`Note: ${change.path} hunk ${f.hunk} matched with ${LAYER_NAMES[f.tolerance]}${how}.`);
      }
      if (f.pieces !== undefined) {
        lines.push(
          `Note: ${change.path} hunk ${f.hunk} fits the file only as ${f.pieces} separate hunks (@@ lines between them left out); each fits one place and was applied so.`,
        );
      }
      if (f.anchorIgnored === true) {
        lines.push(
          `Note: ${change.path} hunk ${f.hunk}: its @@ line does not lead to it; it was placed by its context, which fits one place only.`,
        );
      }
    }
  }
  return lines.join("\n");
}
