import type { SandboxEscapeAnswer, SandboxEscapeRequest } from "@attractor/agent";
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { SelectList, type SelectOption } from "./select-list.js";

const WHY: Record<SandboxEscapeRequest["block"]["kind"], string> = {
  "write-outside": "It tried to write outside the project.",
  network: "It tried to use the network.",
  "hidden-path": "It tried to read a hidden credential path.",
};

/**
 * Asks whether a command the sandbox blocked may run again outside it: once (y), always for this
 * exact command this session (a), or not (n / Esc: the model is told the sandbox blocked it).
 */
export function SandboxPrompt({
  request,
  onAnswer,
}: {
  readonly request: SandboxEscapeRequest;
  readonly onAnswer: (answer: SandboxEscapeAnswer) => void;
}): ReactNode {
  const answers: { answer: SandboxEscapeAnswer; option: SelectOption }[] = [
    { answer: "once", option: { label: "Run it outside the sandbox once", hotkey: "y", color: "yellow" } },
    {
      answer: "always",
      option: { label: "Always run this command outside the sandbox", hotkey: "a", detail: "this session" },
    },
    { answer: "no", option: { label: "Keep it sandboxed", hotkey: "n", detail: "the model is told" } },
  ];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="red" paddingX={1}>
      <Text>
        <Text bold color="red">
          The sandbox blocked a command.
        </Text>{" "}
        {WHY[request.block.kind]}
      </Text>
      <Text dimColor>{request.block.evidence}</Text>
      <Box marginY={1}>
        <Text>
          <Text dimColor>$ </Text>
          <Text bold>{request.command}</Text>
        </Text>
      </Box>
      <SelectList
        options={answers.map((a) => a.option)}
        onSelect={(i) => onAnswer(answers[i]?.answer ?? "no")}
        onCancel={() => onAnswer("no")}
      />
    </Box>
  );
}
