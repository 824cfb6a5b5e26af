import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

/** One line of a transcript: any JSON object with these four fields. */
export interface TranscriptEntry {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  /** ISO 8601. */
  readonly timestamp: string;
  readonly [key: string]: unknown;
}

/** A line that could not be read back. */
export interface TranscriptWarning {
  readonly line: number;
  readonly message: string;
}

/** The first entry of every transcript. */
export interface SessionHeader extends TranscriptEntry {
  readonly type: "session";
  readonly sessionId: string;
  readonly projectDir: string;
  readonly version: 1;
}

/** What a transcript file holds; corrupt lines are skipped and reported in `warnings`. */
export interface Transcript {
  readonly path: string;
  readonly header?: SessionHeader;
  readonly entries: readonly TranscriptEntry[];
  readonly warnings: readonly TranscriptWarning[];
}

/** Reads a transcript line by line (never the whole file at once); bad lines become warnings. */
export async function readTranscript(
  path: string,
  options: { stopAfter?: (entry: TranscriptEntry) => boolean } = {},
): Promise<Transcript> {
  const entries: TranscriptEntry[] = [];
  const warnings: TranscriptWarning[] = [];
  let header: SessionHeader | undefined;
  const stream = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  let pending: { line: number; message: string } | undefined;
  try {
    for await (const line of lines) {
      number++;
      if (pending) warnings.push(pending);
      pending = undefined;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        // Only known to be the last line once the next one arrives.
        pending = { line: number, message: `line ${number} is not valid JSON; skipped` };
        continue;
      }
      if (!isEntry(value)) {
        warnings.push({
          line: number,
          message: `line ${number} is not a transcript entry (needs id, parentId, type, timestamp); skipped`,
        });
        continue;
      }
      if (value.type === "session" && header === undefined) header = value as SessionHeader;
      else entries.push(value);
      if (options.stopAfter?.(value)) break;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (pending)
    warnings.push({
      line: pending.line,
      message: `the last line (${pending.line}) is truncated or corrupt; skipped`,
    });
  return { path, ...(header ? { header } : {}), entries, warnings };
}

function isEntry(value: unknown): value is TranscriptEntry {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === "string" &&
    (v.parentId === null || typeof v.parentId === "string") &&
    typeof v.type === "string" &&
    typeof v.timestamp === "string"
  );
}

/**
 * The entries on the branch ending at the last entry (following parentId back), oldest first:
 * a transcript that was rewound keeps abandoned branches, which this leaves out.
 */
export function activeBranch(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const out: TranscriptEntry[] = [];
  const seen = new Set<string>();
  let current = entries.at(-1);
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    out.push(current);
    current = current.parentId ? byId.get(current.parentId) : undefined;
  }
  return out.reverse();
}
