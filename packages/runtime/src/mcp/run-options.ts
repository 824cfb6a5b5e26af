import type { McpServerConfig } from "@attractor/agent";
import { attractorHome } from "../config/home.js";
import type { ApprovalDecision } from "./approval.js";
import { type PendingMcpServer, type SkippedMcpServer, selectMcpServers, settlePending } from "./servers.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The MCP servers a run connects to (in the background) and those configured but left out. */
export interface McpRunOptions {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly skipped?: readonly SkippedMcpServer[];
  /** How long the first model request waits for servers still connecting. */
  readonly startupWaitMs?: number;
  readonly connectTimeoutMs?: number;
  readonly toolTimeoutMs?: number;
  /** Whether servers may use the model: ask (default; refused headless), allow or deny. */
  readonly sampling?: "ask" | "allow" | "deny";
}

/** A positive whole number of milliseconds from an environment variable, else undefined. */
function millis(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
}

/**
 * The MCP servers of one run, as createRuntime takes them: selected from the settings, the
 * project's `.mcp.json` and `--mcp-config`, with pending project servers put to `ask` (the
 * interactive start-up question) or, headless, left out with the way to approve them.
 * `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT` (ms, as Claude Code reads them) set the start-up and
 * per-call timeouts. Undefined when no server is configured anywhere.
 */
export async function mcpRunOptions(options: {
  readonly projectDir: string;
  readonly cwd: string;
  readonly env: Env;
  readonly configFiles: readonly string[];
  readonly strict: boolean;
  readonly ask?: (pending: readonly PendingMcpServer[]) => Promise<ReadonlyMap<string, ApprovalDecision>>;
}): Promise<McpRunOptions | undefined> {
  const home = attractorHome(options.env as NodeJS.ProcessEnv);
  let selection = await selectMcpServers({
    home,
    projectDir: options.projectDir,
    cwd: options.cwd,
    env: options.env,
    configFiles: options.configFiles,
    strict: options.strict,
  });
  if (selection.pending.length > 0 && options.ask) {
    const answers = await options.ask(selection.pending);
    selection = await settlePending(selection, answers, { home, projectDir: options.projectDir });
  }
  const skipped = [
    ...selection.skipped,
    ...selection.pending.map((p) => ({
      name: p.name,
      origin: "project" as const,
      reason: `not approved yet: approve it when attractor asks at start-up, with \`attractor mcp approve ${p.name}\`, or with enabledMcpjsonServers or enableAllProjectMcpServers in the user settings`,
    })),
  ];
  if (Object.keys(selection.servers).length === 0 && skipped.length === 0) return undefined;
  const connectTimeoutMs = millis(options.env.MCP_TIMEOUT);
  const toolTimeoutMs = millis(options.env.MCP_TOOL_TIMEOUT);
  return {
    servers: selection.servers,
    skipped,
    ...(selection.startupWaitMs !== undefined && { startupWaitMs: selection.startupWaitMs }),
    ...(selection.sampling !== undefined && { sampling: selection.sampling }),
    ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
    ...(toolTimeoutMs !== undefined && { toolTimeoutMs }),
  };
}
