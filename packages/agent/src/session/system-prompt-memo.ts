import { type Message, systemMessage } from "@attractor/llm";

/**
 * The last system message and the inputs it was built from. A session builds its system prompt
 * before every request; it is rebuilt only when an input differs (compared by identity, or by
 * value for strings), so an unchanged prompt is the same message object, whose translation the
 * provider adapter keeps.
 */
export interface SystemPromptMemo {
  /** The message for these inputs: the last one when every input is the same, else build()'s. */
  message(inputs: readonly unknown[], build: () => string): Message;
}

/** A memo holding one system message. */
export function createSystemPromptMemo(): SystemPromptMemo {
  let last: { readonly inputs: readonly unknown[]; readonly message: Message } | undefined;
  return {
    message(inputs, build) {
      if (last !== undefined && sameInputs(last.inputs, inputs)) return last.message;
      const message = systemMessage(build());
      last = { inputs, message };
      return message;
    },
  };
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
