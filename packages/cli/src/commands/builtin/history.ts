import type { SlashCommand } from "../types.js";

/**
 * /history: prints the whole conversation again, the earliest items included, which a resumed
 * conversation of more than a few thousand items leaves out to come up quickly.
 */
export const historyCommand: SlashCommand = {
  name: "history",
  summary: "Print the whole conversation again (a long resumed one shows its latest items)",
  idleOnly: true,
  async run({ host }) {
    host.resetScreen(true, { whole: true });
  },
};
