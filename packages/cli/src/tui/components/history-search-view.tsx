import { Box, Text } from "ink";
import type { ReactNode } from "react";

/** Lines of a found entry shown at most while searching. */
const SEARCH_PREVIEW_LINES = 4;

/** Ctrl+R search: the match (the query's first occurrence underlined) and the query being typed. */
export function HistorySearchView({
  query,
  match,
  prefix,
}: {
  readonly query: string;
  readonly match: string | undefined;
  readonly prefix: string;
}): ReactNode {
  const lines = match?.split("\n") ?? [];
  const shown = lines.slice(0, SEARCH_PREVIEW_LINES);
  const at = query === "" ? -1 : (match ?? "").toLowerCase().indexOf(query.toLowerCase());
  let offset = 0;
  return (
    <Box flexDirection="column">
      {match === undefined ? (
        <Box>
          <Box width={2} flexShrink={0}>
            <Text color="blueBright" bold>
              {prefix}
            </Text>
          </Box>
          <Text dimColor>{query === "" ? "(the history is empty)" : "no match in the history"}</Text>
        </Box>
      ) : (
        shown.map((line, i) => {
          const start = offset;
          offset += line.length + 1;
          const from = at - start;
          const hit = at >= 0 && from >= 0 && from < line.length;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
            <Box key={i}>
              <Box width={2} flexShrink={0}>
                <Text color="blueBright" bold>
                  {i === 0 ? prefix : " "}
                </Text>
              </Box>
              {hit ? (
                <Text>
                  {line.slice(0, from)}
                  <Text bold underline color="yellow">
                    {line.slice(from, from + query.length)}
                  </Text>
                  {line.slice(from + query.length)}
                </Text>
              ) : (
                <Text>{line || " "}</Text>
              )}
            </Box>
          );
        })
      )}
      {lines.length > SEARCH_PREVIEW_LINES ? (
        <Text dimColor>
          {"  "}… {lines.length - SEARCH_PREVIEW_LINES} more lines
        </Text>
      ) : null}
      <Text>
        <Text color="cyan">search history: </Text>
        {query}
        <Text inverse> </Text>
        <Text dimColor> · ctrl+r older · enter use · esc cancel</Text>
      </Text>
    </Box>
  );
}
