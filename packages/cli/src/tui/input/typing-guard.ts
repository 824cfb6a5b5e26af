import type { Key } from "ink";
import { createContext, type RefObject, useRef } from "react";
import type { KeyHandler } from "./key-handoff.js";

/**
 * Keys typed into the draft just before a question of the agent appears belong to the draft:
 * a "y", an "a" or Enter meant for the message must not answer a permission prompt the user has
 * not read. For a moment after such a question appears, its lists ignore keys (Esc and Ctrl+C
 * aside) and the root hands them to the draft instead.
 */
export interface TypingGuard {
  /** When the user last typed into the draft, leaving text in it (ms since the epoch; 0: empty). */
  lastTyped: number;
  /** Keys go to the draft until then. */
  holdUntil: number;
  /** The draft's key handler (it takes keys while hidden). */
  draft: KeyHandler | undefined;
}

/** Typing this recently before a question appears means the next keys were meant for the draft. */
export const RECENT_TYPING_MS = 1500;
/** How long a question's keys go to the draft: about the time it takes to notice the question. */
export const HOLD_MS = 800;

/** Provided by the root; read by the draft, the lists and the answer field. */
export const TypingGuardContext = createContext<RefObject<TypingGuard> | undefined>(undefined);

/** Creates the root's guard. */
export function useTypingGuard(): RefObject<TypingGuard> {
  return useRef<TypingGuard>({ lastTyped: 0, holdUntil: 0, draft: undefined });
}

/** A question appeared: holds its keys for the draft when the user was typing just before. */
export function holdIfTyping(guard: RefObject<TypingGuard>, now = Date.now()): void {
  if (now - guard.current.lastTyped < RECENT_TYPING_MS) guard.current.holdUntil = now + HOLD_MS;
}

/** True when this key goes to the draft rather than to the question on screen. */
export function heldForDraft(guard: RefObject<TypingGuard> | undefined, input: string, key: Key): boolean {
  if (guard === undefined || Date.now() >= guard.current.holdUntil) return false;
  return !key.escape && !(key.ctrl && input === "c");
}
