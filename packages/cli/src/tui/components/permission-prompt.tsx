import type { AskAnswer, PermissionRequest } from "@attractor/runtime/permissions";
import { Box, Text, useStdout } from "ink";
import { type ReactNode, useMemo, useRef, useState } from "react";
import { useKeys } from "../input/keys.js";
import { permissionPreview } from "../permission-preview.js";
import { targetOf } from "../transcript/tool-summary.js";
import { DiffView, parseDiff } from "./diff-view.js";
import { SelectList, type SelectOption } from "./select-list.js";

/** Lines of a diff or argument preview shown in a prompt at most, and the rows the rest of it needs. */
const PREVIEW_LINES = 30;
const PROMPT_ROWS = 18;

/**
 * Asks whether a tool call may run, showing the command or the diff it would make:
 * allow once (y), always allow this session (a), deny (n), abort the run (Esc).
 */
export function PermissionPrompt({
  request,
  projectDir,
  onAnswer,
  queued = 0,
}: {
  readonly request: PermissionRequest;
  readonly projectDir: string;
  readonly onAnswer: (answer: AskAnswer) => void;
  /** Further prompts waiting after this one. */
  readonly queued?: number;
}): ReactNode {
  const preview = useMemo(() => permissionPreview(request, projectDir), [request, projectDir]);
  // Scrolling the whole preview (ctrl+o): the answers wait while ↑/↓ move through it.
  const [scroll, setScrollState] = useState<number | undefined>(undefined);
  // Keys can arrive before the next render: the ref says at once whether they scroll or answer.
  const scrolling = useRef(false);
  const setScroll = (next: number | undefined | ((s: number | undefined) => number | undefined)) => {
    setScrollState((s) => {
      const value = typeof next === "function" ? next(s) : next;
      scrolling.current = value !== undefined;
      return value;
    });
  };
  // A prompt taller than the terminal cannot be redrawn cleanly: the preview gives way first.
  const { stdout } = useStdout();
  const previewLines = Math.max(4, Math.min(PREVIEW_LINES, (stdout.rows ?? 40) - PROMPT_ROWS));
  const answers: { answer: AskAnswer; option: SelectOption }[] = [
    { answer: "allow_once", option: { label: "Allow once", hotkey: "y", color: "green" } },
    ...(request.canAllowAlways
      ? [
          {
            answer: "allow_always" as const,
            option: {
              label: "Always allow this session",
              hotkey: "a",
              ...(request.alwaysRules.length > 0 && { detail: request.alwaysRules.join(", ") }),
            },
          },
        ]
      : []),
    { answer: "deny", option: { label: "Deny", hotkey: "n", detail: "the model is told and goes on" } },
    { answer: "abort", option: { label: "Abort the run", detail: "esc", color: "red" } },
  ];
  const total =
    preview.kind === "diff"
      ? parseDiff(preview.diff).length
      : preview.kind === "arguments"
        ? preview.text.split("\n").length
        : preview.kind === "command"
          ? preview.command.split("\n").length
          : 0;
  const longer = total > previewLines;
  const last = Math.max(0, total - previewLines);
  useKeys((input, key) => {
    if (key.ctrl && input === "o") {
      if (!longer && !scrolling.current) return;
      scrolling.current = !scrolling.current;
      setScroll((s) => (s === undefined ? 0 : undefined));
      return;
    }
    if (!scrolling.current) return;
    if (key.escape) {
      setScroll(undefined);
      return;
    }
    const page = Math.max(1, previewLines - 2);
    // Keys can come faster than renders: each step applies to the latest position.
    const by = (step: number) => setScroll((s) => Math.max(0, Math.min(last, (s ?? 0) + step)));
    if (key.upArrow) by(-1);
    else if (key.downArrow) by(1);
    else if (key.pageUp) by(-page);
    else if (key.pageDown || input === " ") by(page);
  });
  const offset = scroll ?? 0;
  const title =
    request.kind === "shell" ? "Run a command?" : request.kind === "edit" ? "Change files?" : "Allow?";
  const target = request.kind === "shell" ? "" : targetOf(request.call.toolName, request.call.arguments);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          {title}
        </Text>{" "}
        <Text bold>{request.call.toolName}</Text>
        {target ? <Text> {target}</Text> : null}
        {queued > 0 ? <Text dimColor> (+{queued} waiting)</Text> : null}
      </Text>
      <Text dimColor>{request.reason}</Text>
      <Box marginY={1} flexDirection="column">
        {preview.kind === "command" ? (
          <CommandPreview command={preview.command} lines={previewLines} offset={offset} />
        ) : preview.kind === "diff" && total === 0 ? (
          // A write of what the file already holds: an empty diff would leave a blank gap.
          <Text dimColor>(no change: the file already has this content)</Text>
        ) : preview.kind === "diff" ? (
          <DiffView diff={preview.diff} maxLines={previewLines} offset={offset} />
        ) : preview.kind === "arguments" ? (
          <Text dimColor>
            {preview.text
              .split("\n")
              .slice(Math.min(offset, last), Math.min(offset, last) + previewLines)
              .join("\n")}
          </Text>
        ) : (
          <Text dimColor>(no arguments)</Text>
        )}
      </Box>
      {scroll !== undefined ? (
        <Text color="cyan">↑/↓ PgUp/PgDn scroll · ctrl+o back to the answers</Text>
      ) : longer ? (
        <Text dimColor>
          ctrl+o to scroll the whole{" "}
          {preview.kind === "diff" ? "diff" : preview.kind === "command" ? "command" : "input"}
        </Text>
      ) : null}
      <SelectList
        ignoreKeys={() => scrolling.current}
        options={answers.map((a) => a.option)}
        onSelect={(i) => onAnswer(answers[i]?.answer ?? "deny")}
        onCancel={() => onAnswer("abort")}
      />
    </Box>
  );
}

/**
 * A command as the prompt shows it: at most `lines` of it from `offset`, the lines above and
 * below counted (a 100-line here-doc must not push the prompt's title and answers off the screen).
 */
function CommandPreview({
  command,
  lines,
  offset,
}: {
  readonly command: string;
  readonly lines: number;
  readonly offset: number;
}): ReactNode {
  const all = command.split("\n");
  const from = Math.max(0, Math.min(offset, all.length - lines));
  const shown = all.slice(from, from + lines);
  const below = all.length - from - shown.length;
  return (
    <Box flexDirection="column">
      {from > 0 ? <Text dimColor>↑ {from} lines above</Text> : null}
      <Box>
        <Text dimColor>{from === 0 ? "$ " : "  "}</Text>
        <Text bold>{shown.join("\n")}</Text>
      </Box>
      {below > 0 ? <Text dimColor>… {below} more lines</Text> : null}
    </Box>
  );
}
