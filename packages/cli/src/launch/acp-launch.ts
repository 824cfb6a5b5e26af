import { resolve } from "node:path";
import type { SessionDefaults } from "../acp/agent.js";
import type { AcpLaunch } from "../acp/command.js";
import type { CliArgs } from "./args.js";

/** Flags that make no sense for an editor's agent: the editor sends the prompts and picks sessions. */
const REFUSED = ["-p", "--print", "-c", "--continue", "-r", "--resume", "--output-format", "--input-format"];

/** The flag words `attractor acp` refuses, with the reason, or undefined when none is given. */
export function refusedAcpFlag(argv: readonly string[]): string | undefined {
  const refused = argv.find((a) => REFUSED.includes(a) || REFUSED.some((r) => a.startsWith(`${r}=`)));
  return refused === undefined
    ? undefined
    : `attractor acp: ${refused} does not apply: the editor sends the prompts and chooses sessions.`;
}

/**
 * The session defaults `attractor acp` takes from its flags, or the message that refuses them
 * (a prompt or a working directory: the editor gives both).
 */
export function acpLaunch(
  args: CliArgs,
  cwd: string,
  warn: (message: string) => void,
): AcpLaunch | { readonly refused: string } {
  if (args.prompt !== undefined)
    return { refused: `attractor acp: unexpected argument "${args.prompt}": the editor sends the prompts.` };
  if (args.cwd !== undefined)
    return { refused: "attractor acp: --cwd does not apply: the editor gives each session its directory." };
  if (args.verbose) warn("attractor acp: --verbose applies to headless stream-json output; ignored.");
  if (args.unhonouredFlags.length > 0)
    warn(`attractor acp: accepted and not honoured (Claude Code flags): ${args.unhonouredFlags.join(", ")}`);
  const defaults: SessionDefaults = {
    ...(args.provider !== undefined && { provider: args.provider }),
    ...(args.model !== undefined && { model: args.model }),
    ...(args.baseUrl !== undefined && { baseUrl: args.baseUrl }),
    ...(args.mode !== undefined && { mode: args.mode }),
    ...(args.sandbox !== undefined && { sandbox: args.sandbox }),
    ...(args.allowedTools.length > 0 && { allowedTools: args.allowedTools }),
    ...(args.disallowedTools.length > 0 && { disallowedTools: args.disallowedTools }),
    ...(args.systemPrompt !== undefined && { systemPrompt: args.systemPrompt }),
    ...(args.appendSystemPrompt !== undefined && { appendSystemPrompt: args.appendSystemPrompt }),
    ...(args.maxTurns !== undefined && { maxTurns: args.maxTurns }),
    ...(args.reasoningEffort !== undefined && { reasoningEffort: args.reasoningEffort }),
    ...(args.toolMode !== undefined && { toolMode: args.toolMode }),
    ...(args.remote !== undefined && { remote: args.remote }),
    ...(args.addDirs.length > 0 && { additionalDirectories: args.addDirs.map((d) => resolve(cwd, d)) }),
    trustProject: args.trustProject,
    ...(args.settingSources !== undefined && { claudeSettingSources: args.settingSources }),
  };
  return { defaults, mcpConfig: args.mcpConfig, strictMcpConfig: args.strictMcpConfig };
}
