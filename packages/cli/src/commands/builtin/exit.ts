import type { SlashCommand } from "../types.js";

/** /exit: leaves attractor (the session is stored and can be resumed). */
export const exitCommand: SlashCommand = {
  name: "exit",
  aliases: ["quit"],
  summary: "Leave attractor",
  async run({ host }) {
    host.exit();
  },
};
