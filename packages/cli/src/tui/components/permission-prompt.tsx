import { Box, Text, useStdout } from "ink";
import { type ReactNode, useMemo } from "react";
import type { AskAnswer, PermissionRequest } from "../../permissions/index.js";
import { permissionPreview } from "../permission-preview.js";
import { targetOf } from "../transcript/tool-summary.js";
import { DiffView } from "./diff-view.js";
import { SelectList, type SelectOption } from "./select-list.js";

/** Lines of a diff or argument preview shown in a prompt at most, and the rows the rest of it needs. */
const PREVIEW_LINES = 30;
const PROMPT_ROWS = 16;

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
          <Text>
            <Text dimColor>$ </Text>
            <Text bold>{preview.command}</Text>
          </Text>
        ) : preview.kind === "diff" ? (
          <DiffView diff={preview.diff} maxLines={previewLines} />
        ) : preview.kind === "arguments" ? (
          <Text dimColor>{preview.text.split("\n").slice(0, previewLines).join("\n")}</Text>
        ) : (
          <Text dimColor>(no arguments)</Text>
        )}
      </Box>
      <SelectList
        options={answers.map((a) => a.option)}
        onSelect={(i) => onAnswer(answers[i]?.answer ?? "deny")}
        onCancel={() => onAnswer("abort")}
      />
    </Box>
  );
}
