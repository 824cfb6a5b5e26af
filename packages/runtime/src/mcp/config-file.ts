import type { McpServerConfig } from "@attractor/agent";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { expandVariables } from "./expand.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A file in `.mcp.json`'s format that cannot be used at all (unreadable, not JSON, wrong shape). */
export class McpConfigFileError extends Error {
  override readonly name = "McpConfigFileError";
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** The server entries of a `{"mcpServers": {...}}` text, unvalidated; throws McpConfigFileError. */
export function parseMcpJson(text: string, file: string): Readonly<Record<string, unknown>> {
  // Plain JSON as Claude Code writes it; comments and trailing commas are tolerated, as in settings.
  const errors: ParseError[] = [];
  const data: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const before = text.slice(0, first.offset).split("\n");
    const column = (before.at(-1)?.length ?? 0) + 1;
    throw new McpConfigFileError(
      file,
      `invalid JSON at line ${before.length}, column ${column}: ${printParseErrorCode(first.error)}`,
    );
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new McpConfigFileError(file, 'expected an object with "mcpServers"');
  const servers = (data as { mcpServers?: unknown }).mcpServers;
  if (servers === undefined) return {};
  if (servers === null || typeof servers !== "object" || Array.isArray(servers))
    throw new McpConfigFileError(file, '"mcpServers" must be an object of servers by name');
  return servers as Record<string, unknown>;
}

const isStringMap = (v: unknown): v is Record<string, string> =>
  v !== null &&
  typeof v === "object" &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => typeof x === "string");

/**
 * One server entry checked and with `${VAR}` / `${VAR:-default}` expanded, or the reason it
 * cannot be used. stdio: `{command, args?, env?, cwd?}` (type absent or "stdio"); remote:
 * `{type: "http" | "sse", url, headers?}`; a client program's in-process server: `{type: "sdk"}`
 * (reachable only when that program drives the run over stream-json, which wires its transport).
 */
export function serverConfig(
  raw: unknown,
  env: Env,
):
  | { readonly ok: true; readonly config: McpServerConfig }
  | { readonly ok: false; readonly problem: string } {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { ok: false, problem: "must be an object" };
  const missing = new Set<string>();
  const entry = expandVariables(raw as Record<string, unknown>, env, missing);
  const type = entry.type ?? "stdio";
  let config: McpServerConfig;
  if (type === "http" || type === "sse") {
    if (typeof entry.url !== "string" || entry.url === "")
      return { ok: false, problem: '"url" must be a string' };
    if (!/^https?:\/\//i.test(entry.url))
      return { ok: false, problem: `"url" must be an http:// or https:// URL: ${entry.url}` };
    if (entry.headers !== undefined && !isStringMap(entry.headers))
      return { ok: false, problem: '"headers" must map names to strings' };
    config = { type, url: entry.url, ...(entry.headers !== undefined && { headers: entry.headers }) };
  } else if (type === "stdio") {
    if (typeof entry.command !== "string" || entry.command.trim() === "")
      return { ok: false, problem: '"command" must be a non-empty string' };
    if (
      entry.args !== undefined &&
      !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === "string"))
    )
      return { ok: false, problem: '"args" must be an array of strings' };
    if (entry.env !== undefined && !isStringMap(entry.env))
      return { ok: false, problem: '"env" must map names to strings' };
    if (entry.cwd !== undefined && typeof entry.cwd !== "string")
      return { ok: false, problem: '"cwd" must be a string' };
    config = {
      command: entry.command,
      ...(entry.args !== undefined && { args: entry.args as string[] }),
      ...(entry.env !== undefined && { env: entry.env }),
      ...(entry.cwd !== undefined && { cwd: entry.cwd }),
    };
  } else if (type === "sdk") {
    config = {
      type: "sdk",
      openTransport: () => {
        throw new Error(
          "an in-process (sdk) server is reached through the program driving the run: run attractor with --input-format stream-json from the Claude Agent SDK",
        );
      },
    };
  } else {
    return {
      ok: false,
      problem: `unknown "type" ${JSON.stringify(type)} (expected "stdio", "http", "sse" or "sdk")`,
    };
  }
  if (missing.size > 0)
    return {
      ok: false,
      problem: `missing environment variable${missing.size > 1 ? "s" : ""}: ${[...missing].join(", ")}`,
    };
  return { ok: true, config };
}
