import { useStdout } from "ink";
import { useEffect, useRef } from "react";

/** How long the width must stay put before the transcript is printed again (a drag sends many). */
const SETTLE_MS = 100;

/**
 * Calls `onWidthChange` once the terminal's width has changed and settled. Terminals re-wrap what
 * they show when their width changes, so rows no longer line up with what the UI drew; the caller
 * clears the screen and prints the transcript again at the new width.
 */
export function useTerminalWidthChange(onWidthChange: () => void, settleMs = SETTLE_MS): void {
  const { stdout } = useStdout();
  const latest = useRef(onWidthChange);
  latest.current = onWidthChange;
  useEffect(() => {
    let width = stdout.columns;
    let timer: NodeJS.Timeout | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (stdout.columns === width) return;
        width = stdout.columns;
        latest.current();
      }, settleMs);
    };
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
      clearTimeout(timer);
    };
  }, [stdout, settleMs]);
}
