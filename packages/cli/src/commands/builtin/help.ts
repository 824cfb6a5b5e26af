import type { SlashCommand } from "../types.js";

/** Keys of the interactive UI, for /help. */
export const KEY_HELP: readonly { readonly label: string; readonly detail: string }[] = [
  { label: "enter", detail: "send the message; while the agent works: steer it (after its current step)" },
  {
    label: "tab",
    detail: "complete a slash command; while the agent works: queue the message for after the turn",
  },
  { label: "\\ enter / alt+enter", detail: "new line" },
  { label: "↑ / ↓", detail: "previous / next input" },
  { label: "shift+tab", detail: "cycle the mode: normal → auto-edit → plan (/mode yolo for yolo)" },
  { label: "esc", detail: "interrupt the running turn" },
  { label: "esc esc", detail: "rewind the conversation and/or the files (when the prompt is empty)" },
  { label: "ctrl+c", detail: "interrupt or clear the input; twice to exit" },
  { label: "//text", detail: "send a message that starts with /" },
];

/** /help: the commands of `table` and the keys. */
export function helpCommand(table: () => readonly SlashCommand[]): SlashCommand {
  return {
    name: "help",
    summary: "Show the commands and keys",
    async run({ host }) {
      host.show({
        kind: "list",
        title: "Commands",
        rows: table().map((c) => ({
          label: `/${c.name}${c.args ? ` ${c.args}` : ""}`,
          detail: c.summary,
        })),
      });
      host.show({ kind: "list", title: "Keys", rows: KEY_HELP });
    },
  };
}
