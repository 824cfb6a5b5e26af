import { Box, Text, useStdout } from "ink";
import type { ReactNode } from "react";
import { AssistantText } from "./transcript-item.js";

/** Rows kept free for the prompt and status line below the live answer. */
const RESERVED_ROWS = 12;

/**
 * The part of the answer still streaming: the last lines of reasoning, then the text tail as
 * Markdown. Ink can only redraw what fits on the screen, so a tail taller than the terminal is
 * shown as its last lines in plain text; the whole text is printed once it is final.
 */
export function StreamingMessage({
  reasoning,
  text,
  first,
}: {
  readonly reasoning: string;
  readonly text: string;
  readonly first: boolean;
}): ReactNode {
  const { stdout } = useStdout();
  const rows = Math.max(4, (stdout.rows ?? 24) - RESERVED_ROWS);
  const columns = Math.max(20, (stdout.columns ?? 80) - 2);
  const thought = reasoning.trim().split("\n").slice(-2);
  const lines = text.split("\n");
  const height = lines.reduce((n, line) => n + Math.max(1, Math.ceil(line.length / columns)), 0);
  return (
    <Box flexDirection="column" marginTop={1}>
      {reasoning.trim() && !text.trim() ? (
        <Box flexDirection="column">
          <Text dimColor italic>
            ✻ Thinking
          </Text>
          {thought.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a tail of lines, replaced as a whole
            <Text key={i} dimColor italic wrap="truncate-end">
              {"  "}
              {line}
            </Text>
          ))}
        </Box>
      ) : null}
      {!text.trim() ? null : height <= rows ? (
        <AssistantText text={text} first={first} />
      ) : (
        <Box flexDirection="column" paddingLeft={2}>
          <Text dimColor>…</Text>
          {lines.slice(-rows).map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a tail of lines, replaced as a whole
            <Text key={i} wrap="truncate-end">
              {line}
            </Text>
          ))}
        </Box>
      )}
    </Box>
  );
}
