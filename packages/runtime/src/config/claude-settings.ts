import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { type PermissionModeName, toPermissionMode } from "../permissions/modes.js";
import { parseRule, RuleSyntaxError } from "../permissions/rules.js";
import type { HooksSetting, Settings } from "./settings-schema.js";

/** Where Claude Code keeps the user's settings: $CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeUserDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const fromEnv = env.CLAUDE_CONFIG_DIR?.trim();
  return fromEnv ? fromEnv : join(env.HOME?.trim() || homedir(), ".claude");
}

/** Claude Code's managed (administrator) settings file on this platform; undefined where it has none. */
export function claudeManagedSettingsPath(platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === "linux") return "/etc/claude-code/managed-settings.json";
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  if (platform === "win32") return "C:\\ProgramData\\ClaudeCode\\managed-settings.json";
  return undefined;
}

/** Who a Claude Code settings file belongs to, which decides what it may set. */
export type ClaudeSettingsScope = "user" | "project" | "managed";

/** One Claude Code settings file in attractor's terms. */
export interface ClaudeSettingsLayer {
  readonly file: string;
  readonly scope: ClaudeSettingsScope;
  /** What attractor honours, in its own settings shape (no `sandbox`: Claude Code's means something else). */
  readonly settings: Settings;
  /** The file's `env`: variables set for the session's tools. */
  readonly variables: Readonly<Record<string, string>>;
  /** Keys read and not honoured, as `file: key` strings, for the one start-up warning. */
  readonly unhonoured: readonly string[];
}

/** A Claude Code settings file that cannot be read as JSON; `line`/`column` locate the problem. */
export class ClaudeSettingsError extends Error {
  override readonly name = "ClaudeSettingsError";
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line !== undefined ? `${file}:${line}:${column}: ${problem}` : `${file}: ${problem}`);
  }
}

// Keys attractor reads with the same meaning as Claude Code. The MCP approval keys are the user's
// own choices, so only the user's (or the administrator's) file may make them.
const MCP_APPROVAL_KEYS = ["enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers"];
const PERMISSION_KEYS = new Set(["allow", "deny", "ask", "defaultMode", "additionalDirectories"]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((s) => typeof s === "string") ? (v as string[]) : undefined;

/**
 * Maps the parsed contents of a Claude Code settings file to attractor's settings: permission
 * rules (Claude Code's syntax is attractor's), default mode, extra directories, `env`, `model`,
 * `apiKeyHelper`, hooks and (user or managed) MCP approvals. Everything else is listed in `unhonoured`, and so is
 * any rule attractor cannot parse (it is dropped, never half-applied).
 */
export function fromClaudeSettings(
  data: unknown,
  file: string,
  scope: ClaudeSettingsScope,
): ClaudeSettingsLayer {
  const unhonoured: string[] = [];
  const name = (key: string, why?: string) => unhonoured.push(`${file}: ${key}${why ? ` (${why})` : ""}`);
  if (!isObject(data)) {
    name("the whole file", "not a JSON object");
    return { file, scope, settings: {}, variables: {}, unhonoured };
  }
  const settings: Record<string, unknown> = {};
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema") continue;
    if (key === "model" && typeof value === "string") settings.model = value;
    else if (key === "apiKeyHelper" && typeof value === "string" && value.trim() !== "")
      settings.apiKeyHelper = value;
    else if (key === "hooks" && isObject(value)) settings.hooks = value as HooksSetting;
    else if (key === "env" && isObject(value)) {
      for (const [variable, v] of Object.entries(value)) {
        if (typeof v === "string" || typeof v === "number" || typeof v === "boolean")
          variables[variable] = String(v);
        else name(`env.${variable}`, "not a string");
      }
    } else if (MCP_APPROVAL_KEYS.includes(key) && scope !== "project") settings[key] = value;
    else if (key === "permissions" && isObject(value)) {
      const permissions: Record<string, unknown> = {};
      for (const [entry, v] of Object.entries(value)) {
        if (!PERMISSION_KEYS.has(entry)) {
          name(`permissions.${entry}`);
          continue;
        }
        if (entry === "defaultMode") {
          if (typeof v === "string" && toPermissionMode(v) !== undefined)
            permissions.defaultMode = v as PermissionModeName;
          else name(`permissions.defaultMode ${JSON.stringify(v)}`, "no such mode here");
          continue;
        }
        const list = stringList(v);
        if (!list) {
          name(`permissions.${entry}`, "not a list of strings");
          continue;
        }
        if (entry === "additionalDirectories") {
          permissions.additionalDirectories = list;
          continue;
        }
        const kept: string[] = [];
        for (const rule of list) {
          try {
            parseRule(rule);
            kept.push(rule);
          } catch (error) {
            if (!(error instanceof RuleSyntaxError)) throw error;
            name(`permissions.${entry} ${JSON.stringify(rule)}`, error.message);
          }
        }
        permissions[entry] = kept;
      }
      settings.permissions = permissions;
    } else name(key);
  }
  return { file, scope, settings: settings as Settings, variables, unhonoured };
}

/** Reads and maps one Claude Code settings file; undefined when it does not exist. Throws ClaudeSettingsError. */
export async function readClaudeSettings(
  file: string,
  scope: ClaudeSettingsScope,
): Promise<ClaudeSettingsLayer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ClaudeSettingsError(file, `cannot read: ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const data: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const before = text.slice(0, first.offset).split("\n");
    throw new ClaudeSettingsError(
      file,
      `invalid JSON: ${printParseErrorCode(first.error)}`,
      before.length,
      (before.at(-1)?.length ?? 0) + 1,
    );
  }
  return fromClaudeSettings(data, file, scope);
}
