import type { AskUserQuestion } from "@attractor/runtime";
import { Box, Text } from "ink";
import { type ReactNode, useState } from "react";
import { useKeys } from "../input/keys.js";
import { InputBox } from "./input-box.js";
import { SelectList } from "./select-list.js";

/**
 * The model's question (ask_user): its options as a selection plus "Type an answer…", or a
 * text field when it offers none. Esc dismisses the question.
 */
export function AskUserPrompt({
  question,
  onAnswer,
  onDismiss,
}: {
  readonly question: AskUserQuestion;
  readonly onAnswer: (answer: string) => void;
  readonly onDismiss: () => void;
}): ReactNode {
  const options = question.options ?? [];
  const [typing, setTyping] = useState(options.length === 0);
  useKeys(
    (_input, key) => {
      if (key.escape) {
        if (options.length > 0) setTyping(false);
        else onDismiss();
      }
    },
    { isActive: typing },
  );
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold color="cyan">
        Question
      </Text>
      <Text>{question.question}</Text>
      <Box marginTop={1} flexDirection="column">
        {typing ? (
          <InputBox
            onSubmit={(text) => onAnswer(text)}
            acceptImages={false}
            placeholder="Type your answer, Enter to send"
            prefix="?"
          />
        ) : (
          <SelectList
            options={[...options.map((o) => ({ label: o })), { label: "Type an answer…" }]}
            onSelect={(i) => (i < options.length ? onAnswer(options[i] as string) : setTyping(true))}
            onCancel={onDismiss}
          />
        )}
      </Box>
      <Text dimColor>esc {typing && options.length > 0 ? "back to the options" : "dismiss"}</Text>
    </Box>
  );
}
