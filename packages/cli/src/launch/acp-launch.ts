import type { SessionDefaults } from "../acp/agent.js";
import type { AcpLaunch } from "../acp/command.js";
import type { CliArgs } from "./args.js";
import { runtimeFlags } from "./runtime-flags.js";

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
  if (args.attractorEvents)
    warn("attractor acp: --attractor-events applies to headless stream-json output; ignored.");
  if (args.unhonouredFlags.length > 0)
    warn(`attractor acp: accepted and not honoured (Claude Code flags): ${args.unhonouredFlags.join(", ")}`);
  const defaults: SessionDefaults = runtimeFlags(args, cwd);
  return { defaults, mcpConfig: args.mcpConfig, strictMcpConfig: args.strictMcpConfig };
}
