import { Text } from "ink";
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** About 7 frames a second: each frame rewrites only the spinner's line, a few dozen bytes. */
const INTERVAL_MS = 150;

/**
 * Whether spinners and clocks move. False while the UI waits on the user (a permission prompt):
 * nothing on screen changes then, so nothing is written to the terminal.
 */
export const AnimationContext = createContext(true);

type Listener = () => void;
const listeners = new Set<Listener>();
let tick = 0;
let timer: NodeJS.Timeout | undefined;

/** One clock for every spinner on screen, so they all advance in the same render (one redraw). */
function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => {
    tick++;
    for (const l of listeners) l();
  }, INTERVAL_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** An animated braille spinner; it only re-renders itself, never the transcript. */
export function Spinner({ color = "yellow" }: { readonly color?: string }): ReactNode {
  const animate = useContext(AnimationContext);
  const [frame, setFrame] = useState(tick);
  useEffect(() => (animate ? subscribe(() => setFrame(tick)) : undefined), [animate]);
  return <Text color={color}>{FRAMES[frame % FRAMES.length]}</Text>;
}

/** Seconds since `since` (epoch ms), refreshed every second while animations run. */
export function Elapsed({ since }: { readonly since: number }): ReactNode {
  const animate = useContext(AnimationContext);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!animate) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [animate]);
  return <Text dimColor>{Math.max(0, Math.floor((now - since) / 1000))}s</Text>;
}
