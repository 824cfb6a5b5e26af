import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { Runtime } from "@attractor/runtime";
import {
  type CommandHost,
  commandTable,
  findCommand,
  type OutputBlock,
  runCommand,
} from "../commands/index.js";

/**
 * The built-in commands that make sense in an editor: those that need the terminal (a picker, the
 * clipboard, $EDITOR, leaving the program) or replace the session under the editor are left out,
 * and so is /help, which lists the terminal's commands (the editor lists these).
 */
const EDITOR_COMMANDS: ReadonlySet<string> = new Set([
  "undo",
  "tools",
  "mcp",
  "mode",
  "model",
  "cost",
  "compact",
  "init",
]);

/** What a typed `/name args` is in this session. */
export type CommandTarget =
  | { readonly kind: "builtin" }
  | { readonly kind: "custom"; readonly name: string }
  | { readonly kind: "skill"; readonly name: string }
  | { readonly kind: "none" };

/** The commands an editor offers after `/`: built-in, custom (markdown files) and skills. */
export function availableCommands(runtime: Runtime): AvailableCommand[] {
  const custom = runtime.customCommands ?? [];
  const table = commandTable(custom);
  const builtins: AvailableCommand[] = table
    .filter((c) => EDITOR_COMMANDS.has(c.name))
    .map((c) => ({
      name: c.name,
      description: c.summary,
      ...(c.args !== undefined && { input: { hint: c.args } }),
    }));
  // A custom command never hides a built-in of the same name, as in the terminal.
  const customs: AvailableCommand[] = custom
    .filter((c) => findCommand(c.name) === undefined)
    .map((c) => ({
      name: c.name,
      description: c.description,
      input: { hint: c.argumentHint ?? "arguments" },
    }));
  const taken = new Set([...builtins, ...customs].map((c) => c.name));
  const skills: AvailableCommand[] = (runtime.skills ?? [])
    .filter((s) => !taken.has(s.name))
    .map((s) => ({ name: s.name, description: `Skill: ${s.description}`, input: { hint: "what to do" } }));
  return [...builtins, ...customs, ...skills];
}

/** Which command a typed name runs; `none` when it is no command of this session (sent as text). */
export function commandTarget(runtime: Runtime, name: string): CommandTarget {
  if (EDITOR_COMMANDS.has(name)) return { kind: "builtin" };
  if (findCommand(name) === undefined && runtime.customCommands?.some((c) => c.name === name))
    return { kind: "custom", name };
  if (runtime.skills?.some((s) => s.name === name)) return { kind: "skill", name };
  return { kind: "none" };
}

/**
 * Runs a built-in command against the runtime; what it prints goes to `print` as Markdown, and
 * what it sends as a message is returned to be run as a turn. Pickers and questions, which an
 * editor cannot show mid-command, are answered "cancelled".
 */
export async function runBuiltin(
  runtime: Runtime,
  name: string,
  args: string,
  print: (markdown: string) => void,
): Promise<readonly string[]> {
  const sent: string[] = [];
  const host: CommandHost = {
    show: (block) => print(blockText(block)),
    choose: async () => undefined,
    confirm: async () => false,
    resetScreen: () => {},
    exit: () => {},
    send: (text) => sent.push(text),
  };
  const table = commandTable(runtime.customCommands ?? []).filter((c) => EDITOR_COMMANDS.has(c.name));
  await runCommand(name, args, { runtime, host, busy: false }, table);
  return sent;
}

/** A command's output block as Markdown. */
function blockText(block: OutputBlock): string {
  switch (block.kind) {
    case "text":
      return `${block.tone === "error" ? "**Error:** " : block.tone === "warning" ? "⚠ " : ""}${block.text}\n`;
    case "list":
      return `**${block.title}**\n${block.rows.map((r) => `- ${r.label}${r.detail !== undefined ? `: ${r.detail}` : ""}`).join("\n")}\n`;
    case "diff":
      return `**${block.title}**\n\`\`\`diff\n${block.patch}${block.truncated ? "\n…" : ""}\n\`\`\`\n`;
  }
}
