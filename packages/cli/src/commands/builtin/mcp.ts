import type { McpPromptInfo } from "@attractor/agent";
import { sanitizeNamePart } from "@attractor/agent/internals";
import type { Runtime } from "@attractor/runtime";
import type { SlashCommand } from "../types.js";

const firstLine = (text: string): string => {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
};

/** /mcp: each MCP server's state, tools and prompts; `/mcp reconnect <server>` restarts one. */
export const mcpCommand: SlashCommand = {
  name: "mcp",
  args: "[reconnect <server>]",
  summary: "Show MCP servers, their state, tools and prompts",
  async run({ runtime, host }, args) {
    const mcp = runtime.mcp;
    if (!mcp) {
      host.show({
        kind: "text",
        tone: "info",
        text: "No MCP servers are configured. Add one with `attractor mcp add`, or name servers in the project's .mcp.json.",
      });
      return;
    }
    const [sub, name] = args.split(/\s+/).filter(Boolean);
    if (sub === "reconnect") {
      if (!name) throw new Error("say which server: /mcp reconnect <server>");
      host.show({ kind: "text", tone: "info", text: `Reconnecting MCP server "${name}"…` });
      await mcp.reconnect(name);
      host.show({ kind: "text", tone: "success", text: `MCP server "${name}" is connected.` });
      return;
    }
    if (sub !== undefined) throw new Error(`unknown argument "${sub}": /mcp, or /mcp reconnect <server>`);
    const servers = mcp.servers();
    for (const s of servers) {
      const about = [
        s.transport,
        s.status,
        s.fromCache && "tools as of an earlier run",
        s.serverName && `${s.serverName} ${s.serverVersion ?? ""}`.trim(),
      ]
        .filter(Boolean)
        .join(" · ");
      // Rows carry the server's own tool names (the full names are long); the line below says how
      // the model and permission rules name them.
      host.show({
        kind: "list",
        title: `${s.name}  (${about})`,
        rows: [
          ...s.tools.map((t) => ({ label: t.serverToolName, detail: firstLine(t.description) })),
          ...(s.hasResources
            ? [{ label: "(resources)", detail: "list_mcp_resources / read_mcp_resource" }]
            : []),
        ],
      });
      const notes: string[] = [];
      const prefix = `mcp__${sanitizeNamePart(s.name)}`;
      if (s.tools.length > 0)
        notes.push(
          `The model calls these as ${prefix}__<tool>; the permission rule ${prefix} covers them all.`,
        );
      if (s.prompts.length > 0)
        notes.push(
          `Prompts: ${s.prompts.map((p) => `/${p.name}${p.arguments.length > 0 ? ` ${usage(p)}` : ""}`).join(", ")}`,
        );
      if (notes.length > 0) host.show({ kind: "text", tone: "info", text: notes.join("\n") });
      if (s.error)
        host.show({ kind: "text", tone: s.status === "failed" ? "error" : "warning", text: s.error });
    }
    if (mcp.skipped.length > 0) {
      host.show({
        kind: "list",
        title: "Configured but not used",
        rows: mcp.skipped.map((s) => ({ label: `${s.name} (${s.origin})`, detail: s.reason })),
      });
    }
  },
};

/** Splits prompt arguments on spaces; "double" or 'single' quotes keep spaces in one value. */
export function splitPromptArgs(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  return out;
}

/** Arguments by name, in the prompt's order; the last argument takes any words left over. */
export function promptArguments(prompt: McpPromptInfo, text: string): Record<string, string> {
  const values = splitPromptArgs(text);
  const named: Record<string, string> = {};
  prompt.arguments.forEach((a, i) => {
    const last = i === prompt.arguments.length - 1;
    const value = last ? values.slice(i).join(" ") : values[i];
    if (value !== undefined && value !== "") named[a.name] = value;
  });
  const missing = prompt.arguments.filter((a) => a.required && named[a.name] === undefined);
  if (missing.length > 0)
    throw new Error(`needs ${missing.map((a) => `<${a.name}>`).join(" ")}: /${prompt.name} ${usage(prompt)}`);
  return named;
}

function usage(prompt: McpPromptInfo): string {
  return prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
}

/** The servers' prompts as slash commands `/mcp__server__prompt args`: rendered, then sent. */
export function mcpPromptCommands(runtime: Runtime): SlashCommand[] {
  return (runtime.mcp?.prompts() ?? []).map((prompt) => ({
    name: prompt.name.toLowerCase(),
    args: usage(prompt),
    summary: firstLine(prompt.description || "MCP prompt"),
    async run({ runtime: current, host }, args) {
      const text = await (current.mcp ?? runtime.mcp)?.getPrompt(prompt.name, promptArguments(prompt, args));
      if (text === undefined || text.trim() === "") throw new Error("the server returned an empty prompt");
      if (host.send) host.send(text);
      else await current.submit(text);
    },
  }));
}
