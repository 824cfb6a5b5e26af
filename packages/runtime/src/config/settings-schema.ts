import type { HookEventName } from "@attractor/agent";
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
  /**
   * Claude Code's apiKeyHelper: a shell command whose output is the Anthropic API key, run at
   * start-up when no key is in the environment (a project's needs trust).
   */
  readonly apiKeyHelper?: string;
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
  /** Code intelligence from language servers. */
  readonly lsp?: LspSettings;
  /** Hooks in Claude Code's format: event name → matcher groups of command hooks. */
  readonly hooks?: HooksSetting;
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
  /**
   * Whether MCP servers may use the model (sampling): "ask" the user each time (the default;
   * refused headless), "allow" without asking, "deny" always (user settings only).
   */
  readonly mcpSampling?: "ask" | "allow" | "deny";
  /** The web_search tool: on or off, and a search service for providers without a search of their own. */
  readonly webSearch?: WebSearchSettings;
  /** Retries of a failed model request: how many, the first wait and the longest (ms). */
  readonly retry?: {
    readonly maxRetries?: number;
    readonly baseDelayMs?: number;
    readonly maxDelayMs?: number;
  };
}

/** The `webSearch` section. */
export interface WebSearchSettings {
  /** False: no web_search tool (default true). */
  readonly enabled?: boolean;
  /**
   * A SearXNG instance (`http(s)://host[:port][/path]`, its JSON format enabled) that searches
   * instead of the model provider, for every provider; without it the provider's own search is
   * used where it has one (Anthropic, OpenAI, Gemini) and no web_search is offered elsewhere.
   */
  readonly searxngUrl?: string;
}

/** One language server as settings configure it (the key of `lsp.servers` is its id). */
export interface LspServerSettings {
  readonly command: string;
  readonly args?: readonly string[];
  /** File extensions with the dot: [".go"]. */
  readonly extensions: readonly string[];
  readonly rootMarkers?: readonly string[];
  readonly initializationOptions?: unknown;
}

/** The `lsp` section: on/off, the wait for errors after an edit, servers besides the built-in ones. */
export interface LspSettings {
  /** False: no language servers, no code-intelligence tools (default true). */
  readonly enabled?: boolean;
  /** Milliseconds an edit waits for the server's errors (default 1500; 0 turns it off). */
  readonly diagnosticsWaitMs?: number;
  /** By id; an id of a built-in server ("typescript", "python") replaces it. */
  readonly servers?: Readonly<Record<string, LspServerSettings>>;
}

/** The hook events (the agent library's list, repeated so reading settings loads no agent code). */
export const HOOK_EVENTS: readonly HookEventName[] = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
];

/** One command a hook runs. */
export interface CommandHookSetting {
  /** "command" or "prompt" (others are skipped with a warning). */
  readonly type: string;
  readonly command?: string;
  /** A "prompt" hook's question for the session's model; `$ARGUMENTS` is the hook input JSON. */
  readonly prompt?: string;
  /** Seconds (default 60). */
  readonly timeout?: number;
}

/** Hooks for one event whose matcher matches (a tool-name regex for the tool events). */
export interface HookMatcherSetting {
  readonly matcher?: string;
  readonly hooks: readonly CommandHookSetting[];
}

/** The `hooks` setting: per event, a list of matcher groups. */
export type HooksSetting = Readonly<Partial<Record<HookEventName, readonly HookMatcherSetting[]>>>;

const hookGroups = {
  type: "array",
  items: {
    type: "object",
    additionalProperties: false,
    required: ["hooks"],
    properties: {
      matcher: { type: "string" },
      hooks: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["type"],
          properties: {
            type: { type: "string", minLength: 1 },
            command: { type: "string", minLength: 1 },
            prompt: { type: "string", minLength: 1 },
            timeout: { type: "number", exclusiveMinimum: 0 },
          },
        },
      },
    },
  },
} as const;

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
    apiKeyHelper: { type: "string", minLength: 1 },
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
    mcpSampling: { enum: ["ask", "allow", "deny"] },
    webSearch: {
      type: "object",
      additionalProperties: false,
      properties: {
        enabled: { type: "boolean" },
        searxngUrl: { type: "string", pattern: "^https?://[^\\s]+$" },
      },
    },
    retry: {
      type: "object",
      properties: {
        maxRetries: { type: "integer", minimum: 0, maximum: 20 },
        baseDelayMs: { type: "integer", minimum: 0 },
        maxDelayMs: { type: "integer", minimum: 0 },
      },
      additionalProperties: false,
    },
    env: {
      type: "object",
      additionalProperties: false,
      properties: {
        allow: { type: "array", items: { type: "string", pattern: "^[A-Za-z_*][A-Za-z0-9_*]*$" } },
      },
    },
    lsp: {
      type: "object",
      additionalProperties: false,
      properties: {
        enabled: { type: "boolean" },
        diagnosticsWaitMs: { type: "integer", minimum: 0, maximum: 60_000 },
        servers: {
          type: "object",
          additionalProperties: {
            type: "object",
            additionalProperties: false,
            required: ["command", "extensions"],
            properties: {
              command: { type: "string", minLength: 1 },
              args: { type: "array", items: { type: "string" } },
              extensions: {
                type: "array",
                minItems: 1,
                items: { type: "string", pattern: "^\\.[^./\\\\]+$" },
              },
              rootMarkers: { type: "array", items: { type: "string", minLength: 1 } },
              initializationOptions: {},
            },
          },
        },
      },
    },
    hooks: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(HOOK_EVENTS.map((event) => [event, hookGroups])),
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
