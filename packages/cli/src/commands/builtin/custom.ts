import type { CustomCommand } from "@attractor/runtime/customization";
import type { SlashCommand } from "../types.js";

/** A markdown-defined command as a slash command: expands its template and sends it. */
export function customSlashCommand(command: CustomCommand): SlashCommand {
  return {
    name: command.name,
    ...(command.argumentHint !== undefined && { args: command.argumentHint }),
    summary: `${command.description} (${command.scope})`,
    async run({ runtime }, args) {
      if (!runtime.runCustomCommand) throw new Error("this front end cannot run custom commands");
      await runtime.runCustomCommand(command.name, args);
    },
  };
}
