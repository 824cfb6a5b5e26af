import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { ToolCallView } from "../transcript/items.js";
import { summarizeToolCall } from "../transcript/tool-summary.js";
import { DiffView } from "./diff-view.js";
import { Spinner } from "./spinner.js";

/** Lines of live output shown under a running call. */
const LIVE_LINES = 4;

/**
 * One tool call: a header line (spinner while running, green or red dot after), then a
 * one-line summary and, depending on the tool, a coloured diff or the first lines of output.
 */
export function ToolCallBlock({ call }: { readonly call: ToolCallView }): ReactNode {
  const summary = summarizeToolCall(call);
  const running = call.result === undefined;
  const failed =
    call.result?.isError === true ||
    (call.toolName === "shell" && summary.line?.startsWith("exit 0") === false);
  return (
    <Box flexDirection="column">
      <Box>
        <Box width={2} flexShrink={0}>
          {running ? <Spinner /> : <Text color={failed ? "red" : "green"}>●</Text>}
        </Box>
        <Text wrap="truncate-end">
          <Text bold>{summary.label}</Text>
          {summary.target ? <Text> {summary.target}</Text> : null}
        </Text>
      </Box>
      {running ? <LiveOutput output={call.output} /> : <Result call={call} failed={failed} />}
    </Box>
  );
}

function LiveOutput({ output }: { readonly output: string }): ReactNode {
  const lines = output
    .replace(/\n$/, "")
    .split("\n")
    .filter((l, i, all) => l !== "" || i < all.length - 1);
  if (output === "") return null;
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lines.slice(-LIVE_LINES).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a tail of lines, replaced as a whole
        <Text key={i} dimColor wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Box>
  );
}

function Result({ call, failed }: { readonly call: ToolCallView; readonly failed: boolean }): ReactNode {
  const summary = summarizeToolCall(call);
  return (
    <Box flexDirection="row">
      <Box width={4} flexShrink={0}>
        <Text dimColor> ⎿</Text>
      </Box>
      <Box flexDirection="column" flexGrow={1}>
        <Text color={failed ? "red" : undefined} dimColor={!failed}>
          {summary.line}
        </Text>
        {summary.diff ? (
          <DiffView diff={summary.diff} showFiles={call.toolName === "apply_patch"} compact />
        ) : null}
        {summary.sources?.map((source) => (
          <Box key={source.n} flexDirection="row">
            <Box width={`[${source.n}] `.length} flexShrink={0}>
              <Text>[{source.n}]</Text>
            </Box>
            <Box flexDirection="column" flexGrow={1}>
              <Text wrap="wrap">{source.title}</Text>
              <Text dimColor wrap="wrap">
                {source.url}
              </Text>
            </Box>
          </Box>
        ))}
        {summary.body.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one finished output never reorder
          <Text key={i} color={failed && call.toolName !== "shell" ? "red" : undefined} wrap="truncate-end">
            {line}
          </Text>
        ))}
        {summary.hiddenLines > 0 ? (
          <Text dimColor>
            … +{summary.hiddenLines} line{summary.hiddenLines === 1 ? "" : "s"} (ctrl+o to view all)
          </Text>
        ) : null}
      </Box>
    </Box>
  );
}
