import type { Runtime } from "@attractor/runtime";
import type { CustomCommand } from "@attractor/runtime/customization";
import { clearCommand } from "./builtin/clear.js";
import { compactCommand } from "./builtin/compact.js";
import { copyCommand } from "./builtin/copy.js";
import { costCommand } from "./builtin/cost.js";
import { customSlashCommand } from "./builtin/custom.js";
import { exitCommand } from "./builtin/exit.js";
import { helpCommand } from "./builtin/help.js";
import { historyCommand } from "./builtin/history.js";
import { initCommand } from "./builtin/init.js";
import { jobsCommand } from "./builtin/jobs.js";
import { mcpCommand, mcpPromptCommands } from "./builtin/mcp.js";
import { memoryCommand } from "./builtin/memory.js";
import { modeCommand } from "./builtin/mode.js";
import { modelCommand } from "./builtin/model.js";
import { resumeCommand } from "./builtin/resume.js";
import { rewindCommand } from "./builtin/rewind.js";
import { toolsCommand } from "./builtin/tools.js";
import { undoCommand } from "./builtin/undo.js";
import type { CommandContext, SlashCommand } from "./types.js";

export { KEY_HELP } from "./builtin/help.js";
export { INIT_PROMPT } from "./builtin/init.js";
export { nextMode } from "./builtin/mode.js";
export { type ParsedInput, parseInput } from "./parse.js";
export type { Choice, CommandContext, CommandHost, OutputBlock, SlashCommand, Tone } from "./types.js";

/** Every slash command, in the order /help lists them. */
export const COMMANDS: readonly SlashCommand[] = [
  helpCommand(() => COMMANDS),
  undoCommand,
  rewindCommand,
  toolsCommand,
  jobsCommand,
  mcpCommand,
  modeCommand,
  modelCommand,
  costCommand,
  copyCommand,
  compactCommand,
  clearCommand,
  resumeCommand,
  historyCommand,
  initCommand,
  memoryCommand,
  exitCommand,
];

/**
 * The built-in commands followed by the custom ones (a custom command never hides a built-in of
 * the same name), with /help listing them all.
 */
export function commandTable(custom: readonly CustomCommand[] = []): readonly SlashCommand[] {
  if (custom.length === 0) return COMMANDS;
  const builtins = COMMANDS.slice(1);
  const taken = new Set(builtins.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
  taken.add("help");
  const table: SlashCommand[] = [];
  table.push(
    helpCommand(() => table),
    ...builtins,
    ...custom.filter((c) => !taken.has(c.name)).map(customSlashCommand),
  );
  return table;
}

/** A command table with the MCP servers' prompts (`/mcp__server__prompt`) of a runtime added. */
export function withMcpPrompts(table: readonly SlashCommand[], runtime: Runtime): readonly SlashCommand[] {
  return runtime.mcp ? [...table, ...mcpPromptCommands(runtime)] : table;
}

/** The command called `name` (or one of its aliases), case-insensitively. */
export function findCommand(
  name: string,
  table: readonly SlashCommand[] = COMMANDS,
): SlashCommand | undefined {
  const n = name.toLowerCase();
  return table.find((c) => c.name === n || c.aliases?.includes(n));
}

/**
 * Runs command `name` with `args`. Unknown names, commands refused while a turn runs, and
 * failures become messages on the host; this never throws.
 */
export async function runCommand(
  name: string,
  args: string,
  context: CommandContext,
  table: readonly SlashCommand[] = COMMANDS,
): Promise<void> {
  const command =
    findCommand(name, table) ??
    (name.startsWith("mcp__") ? findCommand(name, mcpPromptCommands(context.runtime)) : undefined);
  const { host } = context;
  if (!command) {
    const near = matchingCommands(name, table).map((c) => `/${c.name}`);
    host.show({
      kind: "text",
      tone: "error",
      text: `Unknown command /${name}.${near.length > 0 ? ` Did you mean ${near.join(", ")}?` : ""} /help lists them.`,
    });
    return;
  }
  if (command.idleOnly && context.busy) {
    host.show({
      kind: "text",
      tone: "warning",
      text: `/${command.name} cannot run while the agent is working; press Esc to interrupt first.`,
    });
    return;
  }
  try {
    await command.run(context, args);
  } catch (error) {
    host.show({
      kind: "text",
      tone: "error",
      text: `/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}

/** Commands whose name starts with `prefix` (without the slash). */
export function matchingCommands(prefix: string, table: readonly SlashCommand[] = COMMANDS): SlashCommand[] {
  const p = prefix.toLowerCase();
  return table.filter((c) => c.name.startsWith(p) || c.aliases?.some((a) => a.startsWith(p)));
}

/**
 * Tab completion of a partly typed command: the unique match with a trailing space, or the
 * longest common prefix of several; undefined when the text is not a command name being typed.
 */
export function completeCommand(text: string, table: readonly SlashCommand[] = COMMANDS): string | undefined {
  const m = /^\/([\w:-]*)$/.exec(text);
  if (!m) return undefined;
  const names = matchingCommands(m[1] as string, table).map((c) =>
    c.name.startsWith((m[1] as string).toLowerCase())
      ? c.name
      : (c.aliases?.find((a) => a.startsWith(m[1] as string)) ?? c.name),
  );
  if (names.length === 0) return undefined;
  if (names.length === 1) return `/${names[0]} `;
  let common = names[0] as string;
  for (const n of names) while (!n.startsWith(common)) common = common.slice(0, -1);
  return common.length > (m[1] as string).length ? `/${common}` : undefined;
}
