import {
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionModeName,
} from "../permissions/modes.js";

export { PERMISSION_MODES, type PermissionMode };

export const REASONING_EFFORTS = ["minimal", "low", "medium", "high", "xhigh"] as const;
export const TOOL_MODES = ["native", "prompted"] as const;
/** The sandbox modes shell commands run in (the agent library's SandboxMode), strictest first. */
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;
export type SandboxModeSetting = (typeof SANDBOX_MODES)[number];

/** How shell commands are sandboxed. A project's settings file may tighten these, never loosen them. */
export interface SandboxSettings {
  readonly mode?: SandboxModeSetting;
  /** Network access for sandboxed commands (default false). */
  readonly network?: boolean;
  /** Directories writable besides the project in workspace-write (absolute, or relative to the home). */
  readonly writableDirs?: readonly string[];
}

/** Rule lists as written in a settings file: `tool` or `tool(pattern)` strings. */
export interface PermissionRuleLists {
  readonly allow: readonly string[];
  readonly ask: readonly string[];
  readonly deny: readonly string[];
}

/** The `permissions` object of a settings file: rule lists, and Claude Code's two other keys. */
export interface PermissionSettings extends Partial<PermissionRuleLists> {
  /** The mode when none is given on the command line (Claude Code's key; `mode` works too). */
  readonly defaultMode?: PermissionModeName;
  /** More directories the tools may touch, as --add-dir gives them. */
  readonly additionalDirectories?: readonly string[];
}

/** The contents of one settings file, every field optional. */
export interface Settings {
  readonly model?: string;
  readonly provider?: string;
  readonly baseUrl?: string;
  /** Our mode names, or Claude Code's and gemini-cli's aliases. */
  readonly mode?: PermissionModeName;
  readonly reasoningEffort?: (typeof REASONING_EFFORTS)[number];
  readonly maxTurns?: number;
  readonly toolMode?: (typeof TOOL_MODES)[number];
  readonly permissions?: PermissionSettings;
  /** Run the tools on this SSH host, `[user@]host:/path`, as --remote does. */
  readonly remote?: string;
  /** Secret-looking environment variables the shell may see anyway (names, `*` wildcards). */
  readonly env?: { readonly allow?: readonly string[] };
  readonly sandbox?: SandboxSettings;
  /** MCP servers (read from the user's settings only), in `.mcp.json`'s format. */
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  /** Use every server of a project's `.mcp.json` without asking (user settings only). */
  readonly enableAllProjectMcpServers?: boolean;
  /** Project `.mcp.json` servers to use without asking (user settings only). */
  readonly enabledMcpjsonServers?: readonly string[];
  /** Project `.mcp.json` servers never to use (user settings only). */
  readonly disabledMcpjsonServers?: readonly string[];
  /** How long the first model request waits for MCP servers still connecting, in ms. */
  readonly mcpStartupWaitMs?: number;
}

const ruleList = {
  type: "array",
  items: { type: "string", minLength: 1 },
} as const;

/** JSON Schema (draft-07) of a settings file. */
export const SETTINGS_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  additionalProperties: false,
  properties: {
    $schema: { type: "string" },
    model: { type: "string", minLength: 1 },
    provider: { type: "string", minLength: 1 },
    baseUrl: { type: "string", pattern: "^https?://" },
    mode: { enum: [...PERMISSION_MODE_NAMES] },
    reasoningEffort: { enum: [...REASONING_EFFORTS] },
    maxTurns: { type: "integer", minimum: 0 },
    toolMode: { enum: [...TOOL_MODES] },
    remote: { type: "string", minLength: 1 },
    permissions: {
      type: "object",
      additionalProperties: false,
      properties: {
        allow: ruleList,
        ask: ruleList,
        deny: ruleList,
        defaultMode: { enum: [...PERMISSION_MODE_NAMES] },
        additionalDirectories: { type: "array", items: { type: "string", minLength: 1 } },
      },
    },
    mcpServers: { type: "object", additionalProperties: { type: "object" } },
    enableAllProjectMcpServers: { type: "boolean" },
    enabledMcpjsonServers: { type: "array", items: { type: "string", minLength: 1 } },
    disabledMcpjsonServers: { type: "array", items: { type: "string", minLength: 1 } },
    mcpStartupWaitMs: { type: "integer", minimum: 0 },
    env: {
      type: "object",
      additionalProperties: false,
      properties: {
        allow: { type: "array", items: { type: "string", pattern: "^[A-Za-z_*][A-Za-z0-9_*]*$" } },
      },
    },
    sandbox: {
      type: "object",
      additionalProperties: false,
      properties: {
        mode: { enum: [...SANDBOX_MODES] },
        network: { type: "boolean" },
        writableDirs: { type: "array", items: { type: "string", minLength: 1 } },
      },
    },
  },
} as const;
