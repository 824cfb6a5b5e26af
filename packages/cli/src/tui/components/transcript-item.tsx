import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { Markdown } from "../markdown/markdown.js";
import type { TranscriptItem } from "../transcript/items.js";
import { NoticeLine, OutputBlockView } from "./output-block.js";
import { ToolCallBlock } from "./tool-call-block.js";

/** Lines of a finished thought shown (the rest is collapsed, like the other agents do). */
const REASONING_LINES = 3;

/** One finished item of the transcript; rendered once, inside <Static>. */
export function TranscriptItemView({ item }: { readonly item: TranscriptItem }): ReactNode {
  return (
    <Box marginTop={1} flexDirection="column">
      <ItemBody item={item} />
    </Box>
  );
}

function ItemBody({ item }: { readonly item: TranscriptItem }): ReactNode {
  switch (item.kind) {
    case "banner":
      return (
        <Box borderStyle="round" borderColor="magenta" paddingX={1} flexDirection="column">
          <Text bold color="magentaBright">
            {item.title}
          </Text>
          <Text dimColor>{item.detail}</Text>
        </Box>
      );
    case "user":
      return (
        <Box>
          <Box width={2} flexShrink={0}>
            <Text color="blueBright" bold>
              ›
            </Text>
          </Box>
          <Text color="blueBright">{item.text}</Text>
        </Box>
      );
    case "assistant":
      return <AssistantText text={item.text} first={item.first} />;
    case "reasoning": {
      const lines = item.text.split("\n").filter((l) => l.trim() !== "");
      return (
        <Box flexDirection="column">
          <Text dimColor italic>
            ✻ Thinking
          </Text>
          <Box paddingLeft={2} flexDirection="column">
            {lines.slice(0, REASONING_LINES).map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines of one finished thought never reorder
              <Text key={i} dimColor italic wrap="truncate-end">
                {line}
              </Text>
            ))}
            {lines.length > REASONING_LINES ? (
              <Text dimColor>… +{lines.length - REASONING_LINES} lines</Text>
            ) : null}
          </Box>
        </Box>
      );
    }
    case "tool":
      return <ToolCallBlock call={item.call} />;
    case "notice":
      return <NoticeLine tone={item.tone} text={item.text} />;
    case "output":
      return <OutputBlockView block={item.block} />;
  }
}

/** Assistant Markdown with the answer's bullet on its first piece. */
export function AssistantText({
  text,
  first,
}: {
  readonly text: string;
  readonly first: boolean;
}): ReactNode {
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        {/* A later piece's blank gutter carries no colour: a few bytes less for every block. */}
        {first ? <Text color="magentaBright">●</Text> : <Text> </Text>}
      </Box>
      <Box flexDirection="column" flexGrow={1}>
        <Markdown text={text} />
      </Box>
    </Box>
  );
}
