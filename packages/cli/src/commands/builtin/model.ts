import type { SlashCommand } from "../types.js";

/** /model [id]: shows the model or switches to another one of the same provider. */
export const modelCommand: SlashCommand = {
  name: "model",
  args: "[id]",
  summary: "Show or change the model",
  idleOnly: true,
  async run({ runtime, host }, args) {
    if (args === "") {
      host.show({ kind: "text", tone: "info", text: `Model: ${runtime.model} (${runtime.provider})` });
      return;
    }
    runtime.setModel(args);
    host.show({ kind: "text", tone: "success", text: `Model: ${runtime.model}` });
  },
};
