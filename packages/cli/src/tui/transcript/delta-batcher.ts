import type { SessionEvent } from "@attractor/agent";
import type { RuntimeNotice } from "@attractor/runtime";
import type { LooseEvent } from "./model.js";

type UiEvent = SessionEvent | RuntimeNotice | LooseEvent;

/** How often streamed text reaches the screen: a steady pace for reading, a few frames a second. */
export const STREAM_FRAME_MS = 80;

/** Passes events on in order, holding streamed pieces back to deliver them merged once per frame. */
export interface DeltaBatcher {
  push(event: UiEvent): void;
  /** Delivers what is held now. */
  flush(): void;
  /** Drops the timer (what is held is delivered first). */
  dispose(): void;
}

/**
 * Streamed text and tool output arrive in many small pieces; drawing each would redraw the live
 * area dozens of times a second. Pieces are held for at most `frameMs` and consecutive pieces of
 * the same stream are merged into one; any other event delivers what is held first, so the order
 * of everything `deliver` sees is the order of arrival.
 */
export function createDeltaBatcher(
  deliver: (events: readonly UiEvent[]) => void,
  frameMs = STREAM_FRAME_MS,
): DeltaBatcher {
  let held: UiEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (held.length === 0) return;
    const events = held;
    held = [];
    deliver(events);
  };
  return {
    push(event) {
      const merged = isDelta(event) ? mergeInto(held.at(-1), event) : undefined;
      if (merged) held[held.length - 1] = merged;
      else if (isDelta(event)) held.push(event);
      else {
        held.push(event);
        flush();
        return;
      }
      timer ??= setTimeout(flush, frameMs);
    },
    flush,
    dispose: flush,
  };
}

function isDelta(event: UiEvent): boolean {
  return event.kind === "assistant_text_delta" || event.kind === "tool_call_output_delta";
}

/** `event` appended to `last` when both are pieces of the same stream, else undefined. */
function mergeInto(last: UiEvent | undefined, event: UiEvent): UiEvent | undefined {
  if (!last || last.kind !== event.kind) return undefined;
  const a = last as SessionEvent;
  const b = event as SessionEvent;
  if (
    a.kind === "assistant_text_delta" &&
    b.kind === "assistant_text_delta" &&
    a.data.channel === b.data.channel
  )
    return { ...a, data: { ...a.data, delta: a.data.delta + b.data.delta } };
  if (
    a.kind === "tool_call_output_delta" &&
    b.kind === "tool_call_output_delta" &&
    a.data.callId === b.data.callId
  )
    return { ...a, data: { ...a.data, delta: a.data.delta + b.data.delta } };
  return undefined;
}
