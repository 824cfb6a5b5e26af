import type { SlashCommand } from "../types.js";

/** /clear: starts a fresh session and clears the screen; the old one stays stored for /resume. */
export const clearCommand: SlashCommand = {
  name: "clear",
  aliases: ["new"],
  summary: "Start a new conversation (the current one can be resumed)",
  idleOnly: true,
  async run({ runtime, host }) {
    await runtime.clear();
    host.resetScreen(false);
    host.show({ kind: "text", tone: "info", text: "Started a new conversation." });
  },
};
