import {
  PERMISSION_MODE_NAMES,
  type PermissionMode,
  PROVIDERS,
  SANDBOX_MODES,
  type SandboxModeSetting,
  TOOL_MODES,
  toPermissionMode,
} from "@attractor/runtime/names";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { OUTPUT_FORMATS, type OutputFormat } from "../headless/output-formats.js";

/** The headless input formats of --input-format. */
export const INPUT_FORMATS = ["text", "stream-json"] as const;

/**
 * Splits a tool-rule list as Claude Code's --allowedTools takes it: rules separated by commas or
 * spaces, except inside a rule's parentheses (`Bash(git diff:*),Edit` is two rules).
 */
export function splitRuleList(text: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current !== "") rules.push(current);
      current = "";
    } else current += ch;
  }
  if (current !== "") rules.push(current);
  return rules;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The reasoning efforts the command line offers (settings files accept a few more). */
export const CLI_REASONING_EFFORTS = ["low", "medium", "high"] as const;

/** The command line, parsed. Absent fields fall back to settings files, then defaults. */
export interface CliArgs {
  /** The positional words, joined by spaces; undefined when none were given. */
  readonly prompt?: string;
  readonly print: boolean;
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly mode?: PermissionMode;
  /** How shell commands are sandboxed (bubblewrap); workspace-write wherever it can run. */
  readonly sandbox?: SandboxModeSetting;
  readonly outputFormat?: OutputFormat;
  readonly inputFormat?: (typeof INPUT_FORMATS)[number];
  /** Claude Code's --verbose: accepted (its stream-json needs it); the stream is the same without it. */
  readonly verbose: boolean;
  /** stream-json output: add attractor's own events as `attractor_event` lines. */
  readonly attractorEvents: boolean;
  /** Allow rules from --allowedTools, in the settings' rule syntax. */
  readonly allowedTools: readonly string[];
  /** Deny rules from --disallowedTools. */
  readonly disallowedTools: readonly string[];
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  /** Directories from --add-dir, as given. */
  readonly addDirs: readonly string[];
  /** `[user@]host:/path` from --remote. */
  readonly remote?: string;
  /** --container NAME and --container-runtime: where shell commands run. */
  readonly container?: { readonly runtime: string; readonly container: string };
  readonly maxTurns?: number;
  readonly reasoningEffort?: (typeof CLI_REASONING_EFFORTS)[number];
  readonly toolMode?: (typeof TOOL_MODES)[number];
  readonly continueLatest: boolean;
  /** An id, or true for `--resume` without one (choose from a list). */
  readonly resume?: string | true;
  readonly cwd?: string;
  /** `--mcp-config` files or JSON strings, in order. */
  readonly mcpConfig: readonly string[];
  /** Use only the `--mcp-config` servers. */
  readonly strictMcpConfig: boolean;
  /** Trust the project for this run: its security-sensitive settings apply and its hooks may run. */
  readonly trustProject: boolean;
  /** `--setting-sources`: which of Claude Code's settings files to read (all when undefined). */
  readonly settingSources?: readonly ("user" | "project" | "local")[];
  /** `--permission-prompt-tool`: "stdio" puts permission questions to the client over stream-json. */
  readonly permissionPromptTool?: string;
  /** Claude Code flags given that are accepted and not honoured (named in one warning). */
  readonly unhonouredFlags: readonly string[];
}

/**
 * Flags of Claude Code's command line that the Claude Agent SDK passes, accepted so a program
 * built on the SDK starts, and named as not honoured when given. Those taking a value first.
 */
export const CLAUDE_CODE_VALUE_FLAGS: readonly string[] = [
  "max-thinking-tokens",
  "thinking",
  "thinking-display",
  "effort",
  "max-budget-usd",
  "task-budget",
  "agent",
  "agents",
  "betas",
  "json-schema",
  "debug-file",
  "permission-prompt-tool",
  "permission-prompts",
  "channels",
  "tools",
  "settings",
  "fallback-model",
  "project-config-root",
  "plugin-dir",
  "plugin-dir-no-mcp",
  "resume-session-at",
  "resume-drops-turn",
  "session-id",
  "initialize-fields",
  "managed-settings",
];
export const CLAUDE_CODE_SWITCH_FLAGS: readonly string[] = [
  "debug",
  "debug-to-stderr",
  "include-hook-events",
  "include-partial-messages",
  "session-mirror",
  "await-initialize",
  "fork-session",
  "no-session-persistence",
  "managed-settings-in-initialize",
  "replay-user-messages",
];

/** What parsing produced: arguments to run with, or text already printed and the exit code. */
export type ParseOutcome =
  | { readonly kind: "run"; readonly args: CliArgs }
  | { readonly kind: "exit"; readonly code: number };

export interface ParseIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

const EXAMPLES = `
Examples:
  attractor                                  start the interactive UI in this directory
  attractor "add a --verbose flag"           start it with a first message
  attractor -p "fix the failing test"        run headless: do the task, print the answer, exit
  attractor -p --output-format json "..."    print one JSON result object instead
  attractor -p --output-format stream-json   Claude Code's message stream, one JSON object a line
  git diff | attractor -p "review this"      the argument, then the piped text, go to the model
  attractor -p --allowedTools "Bash(npm test:*),Edit" --permission-mode acceptEdits "..."
  git diff | attractor -p                    read the task from stdin
  attractor -c                               continue this directory's latest session
  attractor --provider openai-compatible --base-url http://localhost:11434/v1 --model qwen3:8b
  attractor -p --mcp-config servers.json "..."   add the MCP servers of a file for this run
  attractor mcp list                         MCP servers: list, get <name>, add, remove, approve
  attractor acp                              serve an editor (Zed, JetBrains, Neovim, Emacs) over the
                                             Agent Client Protocol on stdin/stdout

Provider: --provider, else settings.json, else the first key set of ANTHROPIC_API_KEY,
OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY); else OPENAI_COMPATIBLE_BASE_URL.
Base URLs: --base-url, or ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GEMINI_BASE_URL.

Sandbox: shell commands run under bubblewrap (Linux) with writes only in the project and a
private /tmp, no network, credentials hidden: --sandbox read-only | workspace-write |
danger-full-access, or "sandbox": {"mode", "network"} in settings.json.

Exit codes: 0 done, 1 the run failed (provider error, turn limit), 2 bad usage or configuration,
130 interrupted.
`;

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError("expected a whole number of at least 1.");
  return Number(value);
}

function buildProgram(version: string, io: ParseIo): Command {
  const program = buildOptions(version, io);
  // Hidden from the help: documented in the README's Claude Code table.
  for (const flag of CLAUDE_CODE_VALUE_FLAGS)
    program.addOption(new Option(`--${flag} <value>`).hideHelp().argParser(collectFlag));
  for (const flag of CLAUDE_CODE_SWITCH_FLAGS) program.addOption(new Option(`--${flag}`).hideHelp());
  return program;
}

/** Keeps every value a repeated accepted-not-honoured flag was given. */
const collectFlag = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

function buildOptions(version: string, io: ParseIo): Command {
  return new Command("attractor")
    .description("A coding agent for the terminal: reads, edits and runs code in the current directory.")
    .argument("[prompt...]", "the task (headless with -p; otherwise the interactive UI's first message)")
    .option("-p, --print", "run headless: do the task, print the result, exit")
    .addOption(new Option("--provider <name>", "model provider").choices(PROVIDERS))
    .option("-m, --model <id>", "model id (default: the provider's default model from the catalog)")
    .option(
      "--base-url <url>",
      "server URL (required for openai-compatible unless OPENAI_COMPATIBLE_BASE_URL is set)",
    )
    .addOption(
      new Option(
        "--mode, --permission-mode <mode>",
        "permission mode: plan, normal, auto-edit, yolo (Claude Code's and gemini-cli's names work too: default, acceptEdits, bypassPermissions, auto_edit)",
      ).choices(PERMISSION_MODE_NAMES),
    )
    .addOption(
      new Option(
        "--sandbox <mode>",
        "sandbox for shell commands (default: workspace-write where bubblewrap runs)",
      ).choices(SANDBOX_MODES),
    )
    .addOption(
      new Option("--output-format <format>", "headless output (default: text)").choices(OUTPUT_FORMATS),
    )
    .addOption(
      new Option(
        "--input-format <format>",
        "headless input: text, or stream-json user messages on stdin",
      ).choices(INPUT_FORMATS),
    )
    .option("--verbose", "accepted as Claude Code takes it (its stream-json needs it); changes nothing here")
    .option(
      "--attractor-events",
      "stream-json: also print attractor's own events (deltas, retries, compaction) as attractor_event lines",
    )
    .option(
      "--allowedTools, --allowed-tools <rules>",
      'allow rules, comma or space separated (e.g. "Bash(git diff:*),Edit"); repeatable',
      collect,
    )
    .option(
      "--disallowedTools, --disallowed-tools <rules>",
      "deny rules, comma or space separated; repeatable",
      collect,
    )
    .option("--system-prompt <text>", "replace the agent's own instructions in the system prompt")
    .option("--append-system-prompt <text>", "add instructions at the end of the system prompt")
    .option("--add-dir <dir>", "another directory the tools may work in; repeatable", collect)
    .option(
      "--remote <[user@]host:/path>",
      "run the tools on an SSH host (host may be an ~/.ssh/config alias)",
    )
    .option(
      "--container <name>",
      "run shell commands in this running container (the project mounted at the same path)",
    )
    .option("--container-runtime <program>", "the container's runtime: podman or docker", "podman")
    .addOption(
      new Option("--max-turns <n>", "model responses allowed per message").argParser(positiveInteger),
    )
    .addOption(
      new Option("--reasoning-effort <level>", "how hard reasoning models think").choices(
        CLI_REASONING_EFFORTS,
      ),
    )
    .addOption(
      new Option(
        "--tool-mode <mode>",
        "native tool calls, or prompted (JSON in text) for models without them",
      ).choices(TOOL_MODES),
    )
    .addOption(
      new Option("-c, --continue", "continue the latest session of this directory").conflicts("resume"),
    )
    .option("-r, --resume [id]", "resume a stored session (without an id: choose from a list)")
    .option("--cwd <dir>", "the project directory (default: the current directory)")
    .option(
      "--mcp-config <file>",
      "MCP servers from a file (or JSON string) in .mcp.json's format; repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--strict-mcp-config", "use only the --mcp-config servers (not .mcp.json nor settings)")
    .option(
      "--trust-project",
      "trust this project for this run: its sensitive settings (base URL, provider, mode, env, allow rules) apply and its hooks run",
    )
    .option(
      "--setting-sources <sources>",
      "Claude Code's settings files to read: user, project, local, comma separated (default all; empty for none)",
    )
    .option("--dangerously-skip-permissions", "Claude Code's name for --mode yolo (deny rules still apply)")
    .option(
      "--allow-dangerously-skip-permissions",
      "accepted for Claude Code compatibility: switching to yolo mode needs no permission here",
    )
    .version(version, "-v, --version", "print the version")
    .helpOption("-h, --help", "show this help")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError("(run attractor --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
}

/**
 * Parses argv (without node and the script). Help and version are printed and give exit 0;
 * usage errors are printed and give exit 2.
 */
export function parseArgs(argv: readonly string[], version: string, io: ParseIo): ParseOutcome {
  const program = buildProgram(version, io);
  try {
    program.parse([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    const ok = error.code === "commander.helpDisplayed" || error.code === "commander.version";
    return { kind: "exit", code: ok ? 0 : 2 };
  }
  const o = program.opts<{
    print?: boolean;
    provider?: string;
    model?: string;
    baseUrl?: string;
    /** --mode and --permission-mode land here (commander names an option by its last long flag). */
    permissionMode?: string;
    sandbox?: SandboxModeSetting;
    outputFormat?: OutputFormat;
    inputFormat?: CliArgs["inputFormat"];
    verbose?: boolean;
    attractorEvents?: boolean;
    allowedTools?: string[];
    disallowedTools?: string[];
    systemPrompt?: string;
    appendSystemPrompt?: string;
    addDir?: string[];
    remote?: string;
    container?: string;
    containerRuntime?: string;
    maxTurns?: number;
    reasoningEffort?: CliArgs["reasoningEffort"];
    toolMode?: CliArgs["toolMode"];
    continue?: boolean;
    resume?: string | true;
    cwd?: string;
    mcpConfig?: string[];
    strictMcpConfig?: boolean;
    trustProject?: boolean;
    dangerouslySkipPermissions?: boolean;
    settingSources?: string;
  }>();
  const sources = o.settingSources
    ?.split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "");
  const badSource = sources?.find((w) => w !== "user" && w !== "project" && w !== "local");
  if (badSource !== undefined) {
    io.stderr.write(
      `attractor: --setting-sources: unknown source ${JSON.stringify(badSource)} (user, project, local)\n`,
    );
    return { kind: "exit", code: 2 };
  }
  const words = program.args.join(" ").trim();
  return {
    kind: "run",
    args: {
      ...(words !== "" && { prompt: words }),
      print: o.print ?? false,
      ...(o.provider !== undefined && { provider: o.provider }),
      ...(o.model !== undefined && { model: o.model }),
      ...(o.baseUrl !== undefined && { baseUrl: o.baseUrl }),
      ...(o.permissionMode !== undefined
        ? { mode: toPermissionMode(o.permissionMode) as PermissionMode }
        : o.dangerouslySkipPermissions === true && { mode: "yolo" as PermissionMode }),
      ...(o.sandbox !== undefined && { sandbox: o.sandbox }),
      ...(o.outputFormat !== undefined && { outputFormat: o.outputFormat }),
      ...(o.inputFormat !== undefined && { inputFormat: o.inputFormat }),
      verbose: o.verbose ?? false,
      attractorEvents: o.attractorEvents ?? false,
      allowedTools: (o.allowedTools ?? []).flatMap(splitRuleList),
      disallowedTools: (o.disallowedTools ?? []).flatMap(splitRuleList),
      ...(o.systemPrompt !== undefined && { systemPrompt: o.systemPrompt }),
      ...(o.appendSystemPrompt !== undefined && { appendSystemPrompt: o.appendSystemPrompt }),
      addDirs: o.addDir ?? [],
      ...(o.remote !== undefined && { remote: o.remote }),
      ...(o.container !== undefined && {
        container: { runtime: o.containerRuntime ?? "podman", container: o.container },
      }),
      ...(o.maxTurns !== undefined && { maxTurns: o.maxTurns }),
      ...(o.reasoningEffort !== undefined && { reasoningEffort: o.reasoningEffort }),
      ...(o.toolMode !== undefined && { toolMode: o.toolMode }),
      continueLatest: o.continue ?? false,
      mcpConfig: o.mcpConfig ?? [],
      strictMcpConfig: o.strictMcpConfig ?? false,
      ...(o.resume !== undefined && { resume: o.resume }),
      ...(o.cwd !== undefined && { cwd: o.cwd }),
      trustProject: o.trustProject ?? false,
      ...(sources !== undefined && { settingSources: sources as ("user" | "project" | "local")[] }),
      ...(lastValue(program.getOptionValue("permissionPromptTool")) !== undefined && {
        permissionPromptTool: lastValue(program.getOptionValue("permissionPromptTool")) as string,
      }),
      unhonouredFlags: [...CLAUDE_CODE_VALUE_FLAGS, ...CLAUDE_CODE_SWITCH_FLAGS]
        .filter((flag) => {
          const value = program.getOptionValue(camelCase(flag));
          // "stdio" is honoured: the questions go to the client over the control protocol.
          if (flag === "permission-prompt-tool" && lastValue(value) === "stdio") return false;
          // A `--no-x` switch defaults x to true and sets it false when given.
          return flag.startsWith("no-") ? value === false : value !== undefined;
        })
        .map((flag) => `--${flag}`),
    },
  };
}

/** The last value a repeatable flag was given (or its only one). */
function lastValue(value: unknown): string | undefined {
  const last = Array.isArray(value) ? value.at(-1) : value;
  return typeof last === "string" ? last : undefined;
}

/** Commander's attribute name of a long flag: `max-thinking-tokens` → `maxThinkingTokens`. */
function camelCase(flag: string): string {
  // A `--no-x` switch is stored under `x` (false when given).
  const name = flag.startsWith("no-") ? flag.slice(3) : flag;
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
