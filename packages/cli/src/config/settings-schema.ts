import {
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionModeName,
} from "../permissions/modes.js";

export { PERMISSION_MODES, type PermissionMode };

export const REASONING_EFFORTS = ["minimal", "low", "medium", "high", "xhigh"] as const;
export const TOOL_MODES = ["native", "prompted"] as const;

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
    env: {
      type: "object",
      additionalProperties: false,
      properties: {
        allow: { type: "array", items: { type: "string", pattern: "^[A-Za-z_*][A-Za-z0-9_*]*$" } },
      },
    },
  },
} as const;
