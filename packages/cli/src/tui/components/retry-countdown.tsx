import type { RetryWait } from "@attractor/runtime";
import { Box, Text } from "ink";
import { type ReactNode, useContext, useEffect, useState } from "react";
import { AnimationContext } from "./spinner.js";

/**
 * A failed model request waiting for its next attempt: why, and the seconds left, counted down
 * once a second (one short line redrawn, nothing else).
 */
export function RetryCountdown({ retry }: { readonly retry: RetryWait }): ReactNode {
  const animate = useContext(AnimationContext);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!animate) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [animate]);
  const left = Math.max(0, Math.ceil((retry.until - now) / 1000));
  return (
    <Box marginTop={1} flexDirection="column">
      <Text color="yellow" wrap="truncate-end">
        ↻ {left > 0 ? `Retrying in ${left}s` : "Retrying now"} (retry {retry.attempt} of {retry.maxRetries})
        <Text dimColor> · esc to stop</Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        {"  "}
        {retry.reason}
      </Text>
    </Box>
  );
}
