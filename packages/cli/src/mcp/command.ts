import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type McpServerConfig, programOnPath } from "@attractor/agent";
import { attractorHome, parseSettings, readSettingsFile, userSettingsPath } from "@attractor/runtime/config";
import {
  describeServer,
  forgetApprovals,
  mcpAuthFile,
  mcpAuthOptions,
  projectApprovals,
  projectMcpPath,
  recordApprovals,
  serverConfig,
} from "@attractor/runtime/mcp";
import { Command, CommanderError, Option } from "commander";
import { applyEdits, modify, type ParseError, parse as parseJsonc } from "jsonc-parser";

type Scope = "user" | "project";

/** What the subcommands need of the process. */
export interface McpCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project directory for a `--cwd` value (or the current one without). */
  readonly projectDir: (cwd: string | undefined) => string;
}

/** A usage or state problem of an `attractor mcp` subcommand (exit 1, or 2 for usage). */
class McpCommandError extends Error {
  override readonly name = "McpCommandError";
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** A file's text, or undefined when it does not exist. */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new McpCommandError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** A JSON (or JSONC, as settings may be) object file, or undefined when it does not exist. */
async function readJsonObject(file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readText(file);
  if (text === undefined) return undefined;
  const errors: ParseError[] = [];
  const data: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length === 0 && data !== null && typeof data === "object" && !Array.isArray(data))
    return data as Record<string, unknown>;
  throw new McpCommandError(`${file} is not a JSON object; fix it by hand, it was left as it is.`);
}

/** Writes a file whole or not at all. */
async function writeText(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

interface Context {
  readonly io: McpCommandIo;
  readonly home: string;
  readonly projectDir: string;
}

const fileOf = (scope: Scope, ctx: Context) =>
  scope === "user" ? userSettingsPath(ctx.home) : projectMcpPath(ctx.projectDir);

async function serversIn(scope: Scope, ctx: Context): Promise<Record<string, unknown>> {
  const data = await readJsonObject(fileOf(scope, ctx));
  const servers = data?.mcpServers;
  return servers !== null && typeof servers === "object" && !Array.isArray(servers)
    ? (servers as Record<string, unknown>)
    : {};
}

async function setServer(
  scope: Scope,
  ctx: Context,
  name: string,
  entry: unknown | undefined,
): Promise<void> {
  const file = fileOf(scope, ctx);
  await readJsonObject(file);
  // Edited in place, so the file's comments and layout stay as they were.
  const text = (await readText(file)) ?? "{}\n";
  const edits = modify(text, ["mcpServers", name], entry, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" },
  });
  const next = applyEdits(text, edits);
  // The user settings must stay loadable: checked as a whole before anything is written.
  if (scope === "user") await parseSettings(next, file);
  await writeText(file, next.endsWith("\n") ? next : `${next}\n`);
}

function printEntry(ctx: Context, name: string, scope: Scope, raw: unknown, state?: string): void {
  const checked = serverConfig(raw, ctx.io.env);
  const where = checked.ok ? describeServer(checked.config) : `invalid: ${checked.problem}`;
  ctx.io.stdout.write(`${name}  (${scope}${state ? `, ${state}` : ""})  ${where}\n`);
}

async function list(ctx: Context, check: boolean): Promise<number> {
  const user = await serversIn("user", ctx);
  const project = await serversIn("project", ctx);
  const approvals = await projectApprovals({
    home: ctx.home,
    projectDir: ctx.projectDir,
    userSettings: await readSettingsFile(userSettingsPath(ctx.home)),
    entries: project,
  });
  if (Object.keys(user).length + Object.keys(project).length === 0) {
    ctx.io.stdout.write(
      "No MCP servers configured. Add one with: attractor mcp add <name> -- <command> [args...]\n",
    );
    return 0;
  }
  const runnable: Record<string, McpServerConfig> = {};
  for (const [name, raw] of Object.entries(user)) {
    const c = serverConfig(raw, ctx.io.env);
    if (c.ok) runnable[name] = c.config;
  }
  for (const [name, raw] of Object.entries(project)) {
    const c = serverConfig(raw, ctx.io.env);
    if (c.ok && approvals.get(name)?.state === "approved") runnable[name] = c.config;
  }
  const status = check ? await checkServers(runnable, ctx) : new Map<string, string>();
  for (const [name, raw] of Object.entries(user)) printEntry(ctx, name, "user", raw, status.get(name));
  for (const [name, raw] of Object.entries(project)) {
    const a = approvals.get(name);
    const state =
      a?.state === "approved" ? status.get(name) : a?.state === "denied" ? "declined" : "not approved";
    printEntry(ctx, name, "project", raw, state);
  }
  return 0;
}

/** Connects to each server briefly: "connected, N tools" or why it failed. */
async function checkServers(
  servers: Readonly<Record<string, McpServerConfig>>,
  ctx: Context,
): Promise<Map<string, string>> {
  const { McpManager } = await import("@attractor/agent");
  const manager = new McpManager(servers, {
    cwd: ctx.projectDir,
    connectTimeoutMs: 15_000,
    startupWaitMs: 16_000,
    ...mcpAuthOptions(ctx.home),
  });
  try {
    await manager.waitForStartup();
    return new Map(
      manager
        .servers()
        .map((s) => [
          s.name,
          s.status === "connected"
            ? `connected, ${s.tools.length} tools`
            : (s.error?.split("\n")[0] ?? s.status),
        ]),
    );
  } finally {
    await manager.close();
  }
}

async function get(ctx: Context, name: string): Promise<number> {
  const user = await serversIn("user", ctx);
  const project = await serversIn("project", ctx);
  const scope: Scope | undefined = name in project ? "project" : name in user ? "user" : undefined;
  if (!scope)
    throw new McpCommandError(
      `No MCP server named "${name}" in ${projectMcpPath(ctx.projectDir)} or the user settings.`,
    );
  const raw = (scope === "project" ? project : user)[name];
  const checked = serverConfig(raw, ctx.io.env);
  const out = ctx.io.stdout;
  out.write(`${name}\n  scope: ${scope} (${fileOf(scope, ctx)})\n`);
  if (!checked.ok) {
    out.write(`  invalid: ${checked.problem}\n`);
    return 1;
  }
  const config = checked.config;
  out.write(
    `  transport: ${config.type ?? "stdio"}\n  ${config.type === "http" || config.type === "sse" ? "url" : "command"}: ${describeServer(config)}\n`,
  );
  // Names only: values are often secrets.
  const env = (config as { env?: Record<string, string> }).env;
  const headers = (config as { headers?: Record<string, string> }).headers;
  if (env) out.write(`  env: ${Object.keys(env).join(", ")}\n`);
  if (headers) out.write(`  headers: ${Object.keys(headers).join(", ")}\n`);
  if (config.type === "http" || config.type === "sse") {
    const file = mcpAuthFile(ctx.home, name, config.url);
    const stored = await readText(file);
    out.write(`  oauth login: ${stored === undefined ? "none" : `stored (${file})`}\n`);
  }
  let approved = true;
  if (scope === "project") {
    const approvals = await projectApprovals({
      home: ctx.home,
      projectDir: ctx.projectDir,
      userSettings: await readSettingsFile(userSettingsPath(ctx.home)),
      entries: { [name]: raw },
    });
    const a = approvals.get(name);
    approved = a?.state === "approved";
    const shown =
      a?.state === "pending" ? `not approved (attractor mcp approve ${name})` : `${a?.state} (${a?.by})`;
    out.write(`  approval: ${shown}\n`);
  }
  if (!approved) return 0;
  const { McpManager } = await import("@attractor/agent");
  const manager = new McpManager(
    { [name]: config },
    { cwd: ctx.projectDir, connectTimeoutMs: 15_000, startupWaitMs: 16_000, ...mcpAuthOptions(ctx.home) },
  );
  try {
    await manager.waitForStartup();
    const [s] = manager.servers();
    out.write(`  status: ${s?.status === "connected" ? "connected" : (s?.error ?? s?.status)}\n`);
    for (const tool of s?.tools ?? []) out.write(`    ${tool.name}\n`);
    for (const prompt of s?.prompts ?? []) out.write(`    /${prompt.name} (prompt)\n`);
  } finally {
    await manager.close();
  }
  return 0;
}

/** How long `login` waits for the browser to come back. */
const LOGIN_TIMEOUT_MS = 300_000;

/** Opens a URL in the user's browser, if there is a desktop to open it on; never fails. */
function openBrowser(url: string, env: McpCommandIo["env"]): void {
  const opener =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? undefined : "xdg-open";
  if (!opener || (process.platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY)) return;
  import("node:child_process")
    .then(({ spawn }) => {
      // From PATH's absolute folders outside the working directory: `.` in PATH would run the
      // project's own xdg-open.
      const program = programOnPath(opener, process.env.PATH, process.cwd());
      if (!program.includes("/")) return;
      const child = spawn(program, [url], { stdio: "ignore", detached: true });
      child.on("error", () => {});
      child.unref();
    })
    .catch(() => {});
}

/**
 * `attractor mcp login NAME`: the OAuth login to a remote server (http or sse) as configured in
 * the project's `.mcp.json` or the user settings. Prints the authorization URL (and opens it
 * where a browser can be), waits for the redirect on a loopback port, stores the tokens.
 */
async function login(ctx: Context, name: string, browser: boolean): Promise<number> {
  const user = await serversIn("user", ctx);
  const project = await serversIn("project", ctx);
  const raw = name in project ? project[name] : user[name];
  if (raw === undefined)
    throw new McpCommandError(
      `No MCP server named "${name}" in ${projectMcpPath(ctx.projectDir)} or the user settings.`,
    );
  const checked = serverConfig(raw, ctx.io.env);
  if (!checked.ok) throw new McpCommandError(`MCP server "${name}" is not valid: ${checked.problem}`);
  const config = checked.config;
  if (config.type !== "http" && config.type !== "sse")
    throw new McpCommandError(`MCP server "${name}" runs as a command (stdio): it has no login.`, 2);
  const { loginMcpServer, fileAuthStorage } = await import("@attractor/agent");
  const file = mcpAuthFile(ctx.home, name, config.url);
  try {
    await loginMcpServer({
      server: name,
      url: config.url,
      storage: fileAuthStorage(file),
      timeoutMs: LOGIN_TIMEOUT_MS,
      onAuthorizationUrl: (url) => {
        ctx.io.stdout.write(
          `To log in to MCP server "${name}", open this address in a browser:\n\n  ${url.href}\n\n`,
        );
        if (browser) openBrowser(url.href, ctx.io.env);
      },
    });
  } catch (error) {
    if (error instanceof Error && error.name === "McpAuthError") throw new McpCommandError(error.message);
    throw error;
  }
  ctx.io.stdout.write(`Logged in to MCP server "${name}"; the tokens are in ${file}.\n`);
  return 0;
}

/** `attractor mcp logout NAME`: forgets the stored OAuth login of a remote server. */
async function logout(ctx: Context, name: string): Promise<number> {
  const user = await serversIn("user", ctx);
  const project = await serversIn("project", ctx);
  const checked = serverConfig(name in project ? project[name] : user[name], ctx.io.env);
  if (!checked.ok || (checked.config.type !== "http" && checked.config.type !== "sse"))
    throw new McpCommandError(`No remote MCP server named "${name}" is configured.`);
  const file = mcpAuthFile(ctx.home, name, checked.config.url);
  if ((await readText(file)) === undefined) {
    ctx.io.stdout.write(`No login is stored for MCP server "${name}".\n`);
    return 0;
  }
  await rm(file, { force: true });
  ctx.io.stdout.write(`Logged out of MCP server "${name}" (${file} removed).\n`);
  return 0;
}

function parsePairs(values: readonly string[], separator: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf(separator);
    if (at <= 0) throw new McpCommandError(`${what} must look like NAME${separator}VALUE: ${v}`, 2);
    out[v.slice(0, at).trim()] = v.slice(at + separator.length).trim();
  }
  return out;
}

async function add(
  ctx: Context,
  name: string,
  target: string,
  rest: readonly string[],
  o: { scope: Scope; transport: "stdio" | "http" | "sse"; env: string[]; header: string[] },
): Promise<number> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name))
    throw new McpCommandError(`server names may hold letters, digits, "_", "-" and "." only: ${name}`, 2);
  let entry: Record<string, unknown>;
  if (o.transport === "stdio") {
    entry = {
      command: target,
      ...(rest.length > 0 && { args: [...rest] }),
      ...(o.env.length > 0 && { env: parsePairs(o.env, "=", "-e") }),
    };
  } else {
    if (rest.length > 0)
      throw new McpCommandError(`an ${o.transport} server takes a URL only, not arguments`, 2);
    entry = {
      type: o.transport,
      url: target,
      ...(o.header.length > 0 && { headers: parsePairs(o.header, ":", "-H") }),
    };
  }
  const checked = serverConfig(entry, { ...ctx.io.env });
  if (!checked.ok && !checked.problem.startsWith("missing environment"))
    throw new McpCommandError(checked.problem, 2);
  await setServer(o.scope, ctx, name, entry);
  // The user added it: no need to ask them again whether to use it.
  if (o.scope === "project")
    await recordApprovals(ctx.home, ctx.projectDir, [{ name, raw: entry, decision: "approved" }]);
  ctx.io.stdout.write(`Added MCP server "${name}" to ${fileOf(o.scope, ctx)}\n`);
  return 0;
}

async function remove(ctx: Context, name: string, scope: Scope | undefined): Promise<number> {
  const inUser = name in (await serversIn("user", ctx));
  const inProject = name in (await serversIn("project", ctx));
  let from = scope;
  if (from === undefined) {
    if (inUser && inProject)
      throw new McpCommandError(
        `"${name}" is in both the user settings and .mcp.json: choose with --scope user|project`,
        2,
      );
    from = inProject ? "project" : inUser ? "user" : undefined;
  }
  if (from === undefined || !(from === "user" ? inUser : inProject))
    throw new McpCommandError(
      `No MCP server named "${name}"${scope ? ` in the ${scope} configuration` : ""}.`,
    );
  await setServer(from, ctx, name, undefined);
  if (from === "project") await forgetApprovals(ctx.home, ctx.projectDir, [name]);
  ctx.io.stdout.write(`Removed MCP server "${name}" from ${fileOf(from, ctx)}\n`);
  return 0;
}

async function approve(ctx: Context, names: readonly string[], all: boolean): Promise<number> {
  const project = await serversIn("project", ctx);
  const chosen = all ? Object.keys(project) : [...names];
  if (chosen.length === 0) throw new McpCommandError("name the servers to approve, or pass --all", 2);
  const unknown = chosen.filter((n) => !(n in project));
  if (unknown.length > 0)
    throw new McpCommandError(`not in ${projectMcpPath(ctx.projectDir)}: ${unknown.join(", ")}`);
  await recordApprovals(
    ctx.home,
    ctx.projectDir,
    chosen.map((name) => ({ name, raw: project[name], decision: "approved" as const })),
  );
  ctx.io.stdout.write(`Approved for ${ctx.projectDir}: ${chosen.join(", ")}\n`);
  return 0;
}

/**
 * `attractor mcp list|get|add|remove|approve|login|logout`: the MCP servers of the user settings and of the
 * project's `.mcp.json`. Resolves to the exit code (0 done, 1 failed, 2 bad usage).
 */
export async function runMcpCommand(argv: readonly string[], io: McpCommandIo): Promise<number> {
  let result: Promise<number> = Promise.resolve(0);
  const context = (o: { cwd?: string }): Context => ({
    io,
    home: attractorHome(io.env as NodeJS.ProcessEnv),
    projectDir: io.projectDir(o.cwd),
  });
  const scopeOption = () =>
    new Option("-s, --scope <scope>", "user settings or the project's .mcp.json").choices([
      "user",
      "project",
    ]);
  const program = new Command("attractor mcp")
    .description("Configure MCP servers (user settings and the project's .mcp.json)")
    .option("--cwd <dir>", "the project directory (default: the current directory)")
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) })
    .showHelpAfterError();
  program
    .command("list")
    .description("list configured servers and whether they connect")
    .option("--no-check", "do not connect to the servers")
    .action((o: { check: boolean }) => {
      result = list(context(program.opts()), o.check);
    });
  program
    .command("get <name>")
    .description("show a server's configuration, approval and tools")
    .action((name: string) => {
      result = get(context(program.opts()), name);
    });
  program
    .command("add <name> <commandOrUrl> [args...]")
    .description(
      "add a server: attractor mcp add fs -- npx server-filesystem .  |  add -t http api https://host/mcp",
    )
    .addOption(scopeOption().default("user"))
    .addOption(
      new Option("-t, --transport <kind>", "stdio, http or sse")
        .choices(["stdio", "http", "sse"])
        .default("stdio"),
    )
    .option(
      "-e, --env <NAME=VALUE>",
      "environment for a stdio server; repeatable",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option(
      "-H, --header <Name: value>",
      "header for an http or sse server; repeatable",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .action((name: string, target: string, rest: string[], o: Parameters<typeof add>[4]) => {
      result = add(context(program.opts()), name, target, rest, o);
    });
  program
    .command("remove <name>")
    .description("remove a server")
    .addOption(scopeOption())
    .action((name: string, o: { scope?: Scope }) => {
      result = remove(context(program.opts()), name, o.scope);
    });
  program
    .command("approve [names...]")
    .description("allow servers of the project's .mcp.json to run (headless runs need this)")
    .option("--all", "every server of the project's .mcp.json")
    .action((names: string[], o: { all?: boolean }) => {
      result = approve(context(program.opts()), names, o.all === true);
    });
  program
    .command("login <name>")
    .description("log in to a remote (http or sse) server with OAuth; prints the address to open")
    .option("--no-browser", "only print the address")
    .action((name: string, o: { browser: boolean }) => {
      result = login(context(program.opts()), name, o.browser);
    });
  program
    .command("logout <name>")
    .description("forget a remote server's stored OAuth login")
    .action((name: string) => {
      result = logout(context(program.opts()), name);
    });
  try {
    program.parse([...argv], { from: "user" });
    if (argv.length === 0) {
      program.outputHelp();
      return 0;
    }
    return await result;
  } catch (error) {
    if (error instanceof CommanderError)
      return error.code === "commander.helpDisplayed" || error.code === "commander.help" ? 0 : 2;
    if (error instanceof McpCommandError) {
      io.stderr.write(`attractor mcp: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof Error && error.name === "SettingsError") {
      io.stderr.write(`attractor mcp: the user settings would not be valid:\n${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
