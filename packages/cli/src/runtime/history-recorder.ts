import type { SessionEvent, Turn } from "@attractor/agent";
import type { SessionWriter } from "../store/index.js";

/** Where the session's history lives, as the recorder reads it. */
export interface HistorySource {
  readonly history: readonly Turn[];
}

/** Appends a session's history turns to its transcript as they complete. */
export interface HistoryRecorder {
  /** Call for every session event: writes the turns completed since the last call. */
  onEvent(event: SessionEvent): void;
  /** Writes whatever is not written yet and waits until it is on disk. */
  flush(): Promise<void>;
  /** The transcript entry id of the latest user message (checkpoints are grouped by it). */
  readonly lastUserEntryId: string | undefined;
}

/**
 * Records `source.history` into `writer` as `{type: "turn", turn}` entries. The session pushes a
 * turn into its history just before the event announcing it (user_input, assistant_text_end,
 * processing_end…), so every event is a chance to write. A round's tool results are pushed a few
 * microtasks after its last tool_call_end, so that event schedules a write for the next tick.
 * When the history is rewritten rather than extended (compaction), the new history is written
 * as a fresh branch from the transcript's header; readers follow the newest branch.
 */
export function createHistoryRecorder(options: {
  readonly writer: SessionWriter;
  readonly source: HistorySource;
  /** The id of the transcript's header entry (the root new branches hang from). */
  readonly rootId: string | null;
  /** Turns already in the transcript (a resumed session). */
  readonly alreadyWritten: number;
  readonly onUserMessage?: (entryId: string, text: string) => void;
  readonly onError?: (error: unknown) => void;
}): HistoryRecorder {
  const { writer, source } = options;
  let written = options.alreadyWritten;
  let lastWritten: Turn | undefined = written > 0 ? source.history[written - 1] : undefined;
  let pending: Promise<unknown> = Promise.resolve();
  let lastUserEntryId: string | undefined;
  let failed = false;

  const append = (turn: Turn, parentId?: string | null) => {
    const p = writer.append("turn", { turn }, parentId !== undefined ? { parentId } : {});
    if (turn.kind === "user" && writer.lastId !== null) {
      lastUserEntryId = writer.lastId;
      options.onUserMessage?.(writer.lastId, turn.content);
    }
    pending = p.catch((error: unknown) => {
      if (!failed) options.onError?.(error);
      failed = true;
    });
  };

  const sync = () => {
    const history = source.history;
    const rewritten =
      written > history.length ||
      (written > 0 && lastWritten !== undefined && history[written - 1] !== lastWritten);
    if (rewritten) {
      history.forEach((turn, i) => {
        append(turn, i === 0 ? options.rootId : undefined);
      });
    } else {
      for (let i = written; i < history.length; i++) append(history[i] as Turn);
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
  };
}
