import { Text } from "ink";
import { type ReactNode, useEffect, useState } from "react";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const INTERVAL_MS = 100;

/** An animated braille spinner; it only re-renders itself, never the transcript. */
export function Spinner({ color = "yellow" }: { readonly color?: string }): ReactNode {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setFrame((f) => (f + 1) % FRAMES.length), INTERVAL_MS);
    return () => clearInterval(timer);
  }, []);
  return <Text color={color}>{FRAMES[frame]}</Text>;
}

/** Seconds since `since` (epoch ms), refreshed every second. */
export function Elapsed({ since }: { readonly since: number }): ReactNode {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <Text dimColor>{Math.max(0, Math.floor((now - since) / 1000))}s</Text>;
}
