import type { Key } from "ink";
import { createContext, type RefObject, useContext, useEffect, useLayoutEffect, useRef } from "react";

/** Handles one key as Ink's useInput hands it over. */
export type KeyHandler = (input: string, key: Key) => void;

/**
 * The component that has just started taking keys, until its own input subscription is live.
 * Ink subscribes input handlers in passive effects, after the frame showing the component is
 * written: keys pressed in between would reach nobody. The always-subscribed root hands them
 * over instead (see takeEarlyKey).
 */
export interface KeyHandoff {
  handler: KeyHandler | undefined;
  live: boolean;
}

/** Provided by the root, which calls takeEarlyKey first in its own input handler. */
export const KeyHandoffContext = createContext<RefObject<KeyHandoff> | undefined>(undefined);

/** Creates the root's hand-off slot. */
export function useKeyHandoffSlot(): RefObject<KeyHandoff> {
  return useRef<KeyHandoff>({ handler: undefined, live: false });
}

/** Gives a key to a component not yet subscribed; true when it took the key. */
export function takeEarlyKey(slot: RefObject<KeyHandoff>, input: string, key: Key): boolean {
  const { handler, live } = slot.current;
  if (handler === undefined || live) return false;
  handler(input, key);
  return true;
}

/**
 * Claims the keys pressed between the frame that shows this component active and its input
 * subscription. Call it right after the component's useInput, with the same handler: its effects
 * then run after useInput's, so the claim ends exactly when the subscription starts.
 */
export function useKeyHandoff(handler: KeyHandler, isActive: boolean): void {
  const slot = useContext(KeyHandoffContext);
  const latest = useRef(handler);
  latest.current = handler;
  const claim = useRef<KeyHandler | undefined>(undefined);
  // Layout effects run in the commit that shows the component, before any later key is read.
  useLayoutEffect(() => {
    if (slot === undefined || !isActive) return;
    const own: KeyHandler = (input, key) => latest.current(input, key);
    claim.current = own;
    slot.current = { handler: own, live: false };
    return () => {
      if (slot.current.handler === own) slot.current = { handler: undefined, live: false };
    };
  }, [slot, isActive]);
  useEffect(() => {
    if (slot === undefined || !isActive) return;
    if (slot.current.handler === claim.current) slot.current.live = true;
  }, [slot, isActive]);
}
