import type { CostSummary } from "@attractor/runtime";
import type { PermissionMode } from "@attractor/runtime/permissions";
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { tokens } from "../transcript/model.js";

const MODE_COLORS: Readonly<Record<PermissionMode, string>> = {
  plan: "blue",
  normal: "gray",
  "auto-edit": "yellow",
  yolo: "red",
};

/** What the status line shows. */
export interface StatusInfo {
  readonly model: string;
  readonly mode: PermissionMode;
  readonly cost: CostSummary;
  readonly contextPercent: number | undefined;
  /** Commands of the session running in the background (listed by /jobs). */
  readonly jobs?: number;
  /** A transient hint (e.g. "Press Ctrl+C again to exit") shown first, instead of the key help. */
  readonly hint?: string;
}

/** One line under the prompt: model, mode, tokens, cost, context use, background jobs, and a key hint. */
export function StatusLine({ info }: { readonly info: StatusInfo }): ReactNode {
  const { cost, contextPercent } = info;
  const ctx = contextPercent === undefined ? undefined : Math.round(contextPercent);
  return (
    <Box>
      <Text wrap="truncate-end">
        {/* A hint comes first: on a narrow terminal the end of the line is cut off. */}
        {info.hint ? (
          <>
            <Text color="yellow">{info.hint}</Text>
            <Text dimColor> · </Text>
          </>
        ) : null}
        <Text color="magentaBright">{info.model}</Text>
        <Text dimColor> · </Text>
        <Text color={MODE_COLORS[info.mode]} bold={info.mode !== "normal"}>
          {info.mode}
        </Text>
        <Text dimColor> · {tokens(cost.totalTokens)} tokens</Text>
        {cost.costUsd !== undefined ? (
          <Text dimColor> · ${cost.costUsd.toFixed(cost.costUsd < 1 ? 3 : 2)}</Text>
        ) : null}
        {ctx !== undefined ? (
          <Text color={ctx >= 90 ? "red" : ctx >= 75 ? "yellow" : undefined} dimColor={ctx < 75}>
            {" "}
            · ctx {ctx}%
          </Text>
        ) : null}
        {info.jobs !== undefined && info.jobs > 0 ? (
          <Text color="cyan">
            {" "}
            · {info.jobs} background {info.jobs === 1 ? "job" : "jobs"}
          </Text>
        ) : null}
        {info.hint ? null : <Text dimColor> · shift+tab mode · esc interrupt · /help</Text>}
      </Text>
    </Box>
  );
}
