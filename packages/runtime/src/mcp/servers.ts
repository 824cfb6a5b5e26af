import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { McpServerConfig } from "@attractor/agent";
import { userSettingsPath } from "../config/home.js";
import { readSettingsFile } from "../config/settings.js";
import type { Settings } from "../config/settings-schema.js";
import { type ApprovalDecision, projectApprovals, recordApprovals } from "./approval.js";
import { McpConfigFileError, parseMcpJson, serverConfig } from "./config-file.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where a server's entry came from. */
export type McpOrigin = "user" | "project" | "flag";

/** A configured server that will not run, and why. */
export interface SkippedMcpServer {
  readonly name: string;
  readonly origin: McpOrigin;
  readonly reason: string;
}

/** A project server waiting for the user's approval. */
export interface PendingMcpServer {
  readonly name: string;
  /** The entry as the file wrote it (what an approval is recorded against). */
  readonly raw: unknown;
  readonly config: McpServerConfig;
}

/** The servers a run uses, and those it leaves out. */
export interface McpSelection {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly origins: Readonly<Record<string, McpOrigin>>;
  readonly skipped: readonly SkippedMcpServer[];
  readonly pending: readonly PendingMcpServer[];
  /** From the user settings' mcpStartupWaitMs. */
  readonly startupWaitMs?: number;
  /** From the user settings' mcpSampling (a project cannot let servers spend the user's model). */
  readonly sampling?: "ask" | "allow" | "deny";
}

/** The project's `.mcp.json`. */
export function projectMcpPath(projectDir: string): string {
  return join(projectDir, ".mcp.json");
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new McpConfigFileError(file, `cannot read: ${(error as Error).message}`);
  }
}

/**
 * The MCP servers of a run: the user settings' `mcpServers`, then the project's `.mcp.json`
 * (approved servers only), then `--mcp-config` files or JSON strings (later names win). With
 * `strict`, only the `--mcp-config` servers. A bad `--mcp-config` throws McpConfigFileError (the
 * user named it); a bad `.mcp.json` or entry is skipped with its reason.
 */
export async function selectMcpServers(options: {
  readonly home: string;
  readonly projectDir: string;
  readonly cwd: string;
  readonly env: Env;
  readonly configFiles?: readonly string[];
  readonly strict?: boolean;
  /** Already read; read from the home otherwise. */
  readonly userSettings?: Settings;
}): Promise<McpSelection> {
  const servers: Record<string, McpServerConfig> = {};
  const origins: Record<string, McpOrigin> = {};
  const skipped: SkippedMcpServer[] = [];
  const pending: PendingMcpServer[] = [];
  const add = (name: string, raw: unknown, origin: McpOrigin): McpServerConfig | undefined => {
    const checked = serverConfig(raw, options.env);
    if (!checked.ok) {
      skipped.push({ name, origin, reason: checked.problem });
      return undefined;
    }
    servers[name] = checked.config;
    origins[name] = origin;
    return checked.config;
  };

  const user = options.userSettings ?? (await readSettingsFile(userSettingsPath(options.home)));
  if (!options.strict) {
    for (const [name, raw] of Object.entries(user?.mcpServers ?? {})) add(name, raw, "user");
    const file = projectMcpPath(options.projectDir);
    const text = await readText(file).catch((error: unknown) => {
      skipped.push({ name: "*", origin: "project", reason: (error as Error).message });
      return undefined;
    });
    let entries: Readonly<Record<string, unknown>> = {};
    if (text !== undefined) {
      try {
        entries = parseMcpJson(text, file);
      } catch (error) {
        skipped.push({ name: "*", origin: "project", reason: (error as Error).message });
      }
    }
    const approvals = await projectApprovals({
      home: options.home,
      projectDir: options.projectDir,
      userSettings: user,
      entries,
    });
    for (const [name, raw] of Object.entries(entries)) {
      const approval = approvals.get(name);
      if (approval?.state === "approved") {
        add(name, raw, "project");
        continue;
      }
      if (approval?.state === "denied") {
        skipped.push({
          name,
          origin: "project",
          reason:
            approval.by === "settings"
              ? "disabled by disabledMcpjsonServers in the user settings"
              : `declined earlier (attractor mcp approve ${name} to use it)`,
        });
        continue;
      }
      const checked = serverConfig(raw, options.env);
      if (checked.ok) pending.push({ name, raw, config: checked.config });
      else skipped.push({ name, origin: "project", reason: checked.problem });
    }
  }
  for (const spec of options.configFiles ?? []) {
    const inline = spec.trim().startsWith("{");
    const file = inline ? "--mcp-config" : resolve(options.cwd, spec);
    const text = inline ? spec : await readText(file);
    if (text === undefined) throw new McpConfigFileError(file, "no such file");
    for (const [name, raw] of Object.entries(parseMcpJson(text, file))) {
      if (!add(name, raw, "flag")) {
        const reason = skipped.at(-1)?.reason ?? "invalid";
        throw new McpConfigFileError(file, `server "${name}": ${reason}`);
      }
    }
  }
  // A name given again by a later source replaces the earlier entry, pending ones included.
  const live = pending.filter((p) => servers[p.name] === undefined);
  return {
    servers,
    origins,
    skipped: skipped.filter((s) => servers[s.name] === undefined),
    pending: live,
    ...(user?.mcpStartupWaitMs !== undefined && { startupWaitMs: user.mcpStartupWaitMs }),
    ...(user?.mcpSampling !== undefined && { sampling: user.mcpSampling }),
  };
}

/**
 * Applies the user's answers for pending project servers: approved ones join the run, declined
 * ones are skipped; both are remembered for this project.
 */
export async function settlePending(
  selection: McpSelection,
  answers: ReadonlyMap<string, ApprovalDecision>,
  options: { readonly home: string; readonly projectDir: string },
): Promise<McpSelection> {
  const servers = { ...selection.servers };
  const origins = { ...selection.origins };
  const skipped = [...selection.skipped];
  const pending: PendingMcpServer[] = [];
  const record: { name: string; raw: unknown; decision: ApprovalDecision }[] = [];
  for (const p of selection.pending) {
    const decision = answers.get(p.name);
    if (decision === undefined) {
      pending.push(p);
      continue;
    }
    record.push({ name: p.name, raw: p.raw, decision });
    if (decision === "approved") {
      servers[p.name] = p.config;
      origins[p.name] = "project";
    } else {
      skipped.push({
        name: p.name,
        origin: "project",
        reason: `declined (attractor mcp approve ${p.name} to use it)`,
      });
    }
  }
  await recordApprovals(options.home, options.projectDir, record);
  return { ...selection, servers, origins, skipped, pending };
}

/** How a pending or skipped entry reads in messages: the command line or the URL. */
export function describeServer(config: McpServerConfig): string {
  if (config.type === "http" || config.type === "sse") return `${config.type} ${config.url}`;
  const c = config as { command: string; args?: readonly string[] };
  return [c.command, ...(c.args ?? [])].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(" ");
}
