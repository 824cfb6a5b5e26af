import type { SessionEvent, Turn } from "@attractor/agent";
import { packTurn, type SessionWriter } from "../store/index.js";

/** Where the session's history lives, as the recorder reads it. */
export interface HistorySource {
  readonly history: readonly Turn[];
}

/** Where one history turn is in the transcript. */
export interface EntryRef {
  /** The entry holding the turn on the current branch. */
  readonly id: string;
  /** Its parent: a branch that drops this turn and what follows hangs from here. */
  readonly parentId: string | null;
  /** Ids of earlier entries that held the same turn (before a compaction rewrote the branch). */
  readonly aliases: readonly string[];
}

/** Appends a session's history turns to its transcript as they complete. */
export interface HistoryRecorder {
  /** Call for every session event: writes the turns completed since the last call. */
  onEvent(event: SessionEvent): void;
  /**
   * Writes whatever is not written yet: on return every turn is in the transcript file, so a
   * killed process keeps it (the sync to the disk follows off the request path).
   */
  flush(): Promise<void>;
  /** The transcript entry id of the latest user message (checkpoints are grouped by it). */
  readonly lastUserEntryId: string | undefined;
  /** Where each written history turn is, by history index; undefined where unknown. */
  entries(): readonly (EntryRef | undefined)[];
}

/**
 * Records `source.history` into `writer` as `{type: "turn", turn}` entries. The session pushes a
 * turn into its history just before the event announcing it (user_input, assistant_text_end,
 * processing_end…), so every event is a chance to write. A round's tool results are pushed a few
 * microtasks after its last tool_call_end, so that event schedules a write for the next tick.
 * When the history is rewritten rather than extended (compaction), the new history is written
 * as a fresh branch from the transcript's header, each entry naming the entry it `replaces`;
 * readers follow the newest branch.
 */
export function createHistoryRecorder(options: {
  readonly writer: SessionWriter;
  readonly source: HistorySource;
  /** The id of the transcript's header entry (the root new branches hang from). */
  readonly rootId: string | null;
  /** Turns already in the transcript (a resumed or rewound session). */
  readonly alreadyWritten: number;
  /** Where those turns are, by history index. */
  readonly written?: readonly (EntryRef | undefined)[];
  readonly onUserMessage?: (entryId: string, text: string) => void;
  readonly onError?: (error: unknown) => void;
}): HistoryRecorder {
  const { writer, source } = options;
  let written = options.alreadyWritten;
  let lastWritten: Turn | undefined = written > 0 ? source.history[written - 1] : undefined;
  let refs: (EntryRef | undefined)[] = Array.from({ length: written }, (_, i) => options.written?.[i]);
  // Entry ids a turn object was written under, so a rewritten branch can name what it replaces.
  const idsOf = new WeakMap<Turn, string[]>();
  refs.forEach((ref, i) => {
    const turn = source.history[i];
    if (ref && turn) idsOf.set(turn, [ref.id, ...ref.aliases]);
  });
  let pending: Promise<unknown> = Promise.resolve();
  let lastUserEntryId: string | undefined;
  let failed = false;

  const append = (turn: Turn, parentId?: string | null): EntryRef | undefined => {
    const parent = parentId !== undefined ? parentId : writer.lastId;
    const earlier = idsOf.get(turn) ?? [];
    const stored = packTurn(turn);
    const data = earlier.length > 0 ? { turn: stored, replaces: earlier[0] } : { turn: stored };
    const p = writer.append("turn", data, { parentId: parent });
    pending = p.catch((error: unknown) => {
      if (!failed) options.onError?.(error);
      failed = true;
    });
    const id = writer.lastId;
    if (id === null) return undefined;
    idsOf.set(turn, [id, ...earlier]);
    if (turn.kind === "user") {
      lastUserEntryId = id;
      options.onUserMessage?.(id, turn.content);
    }
    return { id, parentId: parent, aliases: earlier };
  };

  const sync = () => {
    const history = source.history;
    const rewritten =
      written > history.length ||
      (written > 0 && lastWritten !== undefined && history[written - 1] !== lastWritten);
    if (rewritten) {
      refs = history.map((turn, i) => append(turn, i === 0 ? options.rootId : undefined));
    } else {
      for (let i = written; i < history.length; i++) refs[i] = append(history[i] as Turn);
    }
    written = history.length;
    lastWritten = history[written - 1];
  };

  return {
    onEvent(event) {
      sync();
      if (event.kind === "tool_call_end") setImmediate(sync);
    },
    async flush() {
      sync();
      await pending;
    },
    get lastUserEntryId() {
      return lastUserEntryId;
    },
    entries: () => refs,
  };
}
