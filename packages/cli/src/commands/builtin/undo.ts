import type { SlashCommand } from "../types.js";

/** /undo: puts the project back to before the last change the agent made. */
export const undoCommand: SlashCommand = {
  name: "undo",
  summary: "Restore the files as they were before the last change",
  idleOnly: true,
  async run({ runtime, host }) {
    const result = await runtime.undo();
    if (!result) {
      host.show({ kind: "text", tone: "info", text: "Nothing to undo." });
      return;
    }
    host.show({
      kind: "text",
      tone: "success",
      text:
        result.files.length > 0
          ? `Undid the last change: ${result.files.join(", ")}`
          : "Undid the last change (no file differed).",
    });
    // What the checkpoint could not keep is said, never left silent.
    for (const notice of result.notices ?? []) host.show({ kind: "text", tone: "warning", text: notice });
  },
};
