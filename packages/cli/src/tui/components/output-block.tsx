import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { OutputBlock, Tone } from "../../commands/types.js";
import { DiffView } from "./diff-view.js";

const TONE_COLORS: Readonly<Record<Tone, string | undefined>> = {
  info: undefined,
  success: "green",
  warning: "yellow",
  error: "red",
};

// Notices have a mark of their own: "›" marks what the user typed.
const TONE_MARKS: Readonly<Record<Tone, string>> = { info: "·", success: "✓", warning: "!", error: "✗" };

/** A one-line (or wrapped) message in the tone's colour. */
export function NoticeLine({ tone, text }: { readonly tone: Tone; readonly text: string }): ReactNode {
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        <Text color={TONE_COLORS[tone]} dimColor={tone === "info"}>
          {TONE_MARKS[tone]}
        </Text>
      </Box>
      <Text color={TONE_COLORS[tone]} dimColor={tone === "info"}>
        {text}
      </Text>
    </Box>
  );
}

/** What a slash command printed: a message, a list, or a diff of files about to change. */
export function OutputBlockView({ block }: { readonly block: OutputBlock }): ReactNode {
  switch (block.kind) {
    case "text":
      return <NoticeLine tone={block.tone} text={block.text} />;
    case "list": {
      const width = Math.min(28, Math.max(0, ...block.rows.map((r) => r.label.length)) + 2);
      return (
        <Box flexDirection="column">
          <Text bold>{block.title}</Text>
          {block.rows.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows of one finished list never reorder
            <Box key={i} paddingLeft={2}>
              <Box width={width} flexShrink={0}>
                <Text color="cyan">{row.label}</Text>
              </Box>
              {row.detail ? <Text dimColor>{row.detail}</Text> : null}
            </Box>
          ))}
        </Box>
      );
    }
    case "diff":
      return (
        <Box flexDirection="column">
          <Text bold>{block.title}</Text>
          {block.files.map((f) => (
            <Text key={f.path}>
              {"  "}
              <Text color={f.change === "deleted" ? "red" : f.change === "created" ? "green" : "yellow"}>
                {f.change === "deleted" ? "delete " : f.change === "created" ? "restore" : "revert "}
              </Text>{" "}
              {f.path}
            </Text>
          ))}
          {block.patch ? (
            <Box paddingLeft={2} marginTop={1}>
              <DiffView diff={block.patch} maxLines={40} />
            </Box>
          ) : null}
          {block.truncated ? <Text dimColor> (diff shortened)</Text> : null}
        </Box>
      );
  }
}
