import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { type PermissionMode, toPermissionMode } from "../permissions/modes.js";
import { parseRule, RuleSyntaxError } from "../permissions/rules.js";
import {
  ClaudeSettingsError,
  type ClaudeSettingsLayer,
  type ClaudeSettingsScope,
  claudeManagedSettingsPath,
  claudeUserDir,
  readClaudeSettings,
} from "./claude-settings.js";
import {
  claudeLocalSettingsPath,
  claudeSettingsPath,
  projectSettingsPath,
  userSettingsPath,
} from "./home.js";
import { tightenSandbox } from "./sandbox-settings.js";
import {
  type HooksSetting,
  type LspSettings,
  type PermissionRuleLists,
  SETTINGS_SCHEMA,
  type Settings,
} from "./settings-schema.js";
import { SETTINGS_AJV_OPTIONS, settingsSchemaKey } from "./settings-schema-key.js";
import { splitUntrustedSettings } from "./trust-settings.js";

/** One thing wrong with a settings file. */
export interface SettingsIssue {
  readonly file: string;
  /** JSON Pointer into the file ("" for the whole document). */
  readonly jsonPath: string;
  readonly problem: string;
  /** Set for syntax errors. */
  readonly line?: number;
  readonly column?: number;
}

/** A settings file that cannot be used; `issues` lists every problem found. */
export class SettingsError extends Error {
  override readonly name = "SettingsError";
  constructor(readonly issues: readonly SettingsIssue[]) {
    super(issues.map(formatIssue).join("\n"));
  }
}

/** Renders an issue as `file:line:column: problem` or `file: at /json/path: problem`. */
export function formatIssue(issue: SettingsIssue): string {
  if (issue.line !== undefined) return `${issue.file}:${issue.line}:${issue.column}: ${issue.problem}`;
  return `${issue.file}: ${issue.jsonPath ? `at ${issue.jsonPath}: ` : ""}${issue.problem}`;
}

/** The hooks one settings file defines, and whether the file belongs to the user or the project. */
export interface HookSource {
  readonly file: string;
  /** Project hooks run only in a trusted project (see projectHooksGate). */
  readonly scope: "user" | "project";
  readonly hooks: HooksSetting;
  /**
   * An untrusted project's hooks, kept for what can only block (PreToolUse): they run confined
   * (see confinedLauncher) and their allow or changed input is ignored.
   */
  readonly confined?: boolean;
}

/** Settings after merging the user's and the project's files. */
export interface ResolvedSettings extends Omit<Settings, "permissions" | "env" | "mode" | "hooks"> {
  readonly permissions: PermissionRuleLists;
  /** `mode` or `permissions.defaultMode`, aliases resolved; the later file wins. */
  readonly mode?: PermissionMode;
  /** `permissions.additionalDirectories` of every file, each resolved against its file's project. */
  readonly additionalDirectories: readonly string[];
  readonly env: { readonly allow: readonly string[] };
  /** The files that existed and were read, user first. */
  readonly sources: readonly string[];
  /** Hooks per file: the user's, .attractor/settings.json, .claude/settings.json, .claude/settings.local.json. */
  readonly hooks?: readonly HookSource[];
  /** Problems that did not stop the files from being used (unknown keys…). */
  readonly warnings?: readonly SettingsIssue[];
  /** Variables Claude Code's settings set (`env`), for the tools' environment: the project's only when trusted. */
  readonly variables: Readonly<Record<string, string>>;
  /** Claude Code settings read and not honoured, as `file: key`, for one start-up warning. */
  readonly unhonoured: readonly string[];
  /** Project settings not applied because the project is not trusted (`baseUrl`, `permissions.allow`…). */
  readonly withheld: readonly string[];
  /**
   * The project's security-sensitive configuration may take effect (the user trusted it, or
   * `--trust-project`). Loaders of other project files (`.mcp.json`, hooks) check this.
   */
  readonly projectTrusted: boolean;
}

// The validator generated ahead of time while it matches the schema (see
// scripts/generate-settings-validator.mjs); otherwise compiled on first use, which costs ajv's
// compiler and the schema's compilation at start-up.
let validator: Promise<ValidateFunction<Settings>> | undefined;
const settingsValidator = (): Promise<ValidateFunction<Settings>> => {
  validator ??= import("./settings-validator.generated.js").then(async (generated) => {
    if (generated.SETTINGS_SCHEMA_KEY === settingsSchemaKey()) {
      return generated.validate as unknown as ValidateFunction<Settings>;
    }
    const mod = await import("ajv");
    // A bundler may hand the CommonJS package over as a default export only.
    const { Ajv } = "Ajv" in mod ? mod : (mod as { default: typeof import("ajv") }).default;
    return new Ajv(SETTINGS_AJV_OPTIONS).compile<Settings>(SETTINGS_SCHEMA);
  });
  return validator;
};

/** 1-based line and column of an offset. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** Reads JSON with comments and trailing commas (JSONC); throws SettingsError at the first syntax error. */
function parseJsonText(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const data: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = position(text, first.offset);
    const problem = `invalid JSON: ${printParseErrorCode(first.error)}`;
    throw new SettingsError([{ file, jsonPath: "", problem, line, column }]);
  }
  return data;
}

/** Removes the value at a JSON Pointer's parent key. */
function removeKey(data: unknown, pointer: string, key: string): void {
  let node = data as Record<string, unknown> | undefined;
  for (const part of pointer.split("/").slice(1)) {
    node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")] as Record<string, unknown> | undefined;
  }
  if (node && typeof node === "object") delete node[key];
}

/**
 * Parses (JSONC) and validates one settings text; throws SettingsError naming `file` on any
 * problem. Unknown keys are not errors: they are dropped and reported in `warnings`, so a file
 * written for a peer tool still works.
 */
export async function parseSettings(
  text: string,
  file: string,
  warnings?: SettingsIssue[],
): Promise<Settings> {
  const data: unknown = parseJsonText(text, file);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new SettingsError([{ file, jsonPath: "", problem: "must be a JSON object" }]);
  }
  const validate = await settingsValidator();
  if (!validate(data)) {
    const unknown = (validate.errors ?? []).filter((e) => e.keyword === "additionalProperties");
    for (const error of unknown) {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      warnings?.push({ file, ...describeAjvError(error) });
      removeKey(data, error.instancePath, key);
    }
    if (!validate(data)) {
      throw new SettingsError((validate.errors ?? []).map((e) => ({ file, ...describeAjvError(e) })));
    }
  }
  const issues: SettingsIssue[] = [];
  for (const list of ["allow", "ask", "deny"] as const) {
    data.permissions?.[list]?.forEach((rule, index) => {
      try {
        parseRule(rule);
      } catch (error) {
        if (!(error instanceof RuleSyntaxError)) throw error;
        issues.push({ file, jsonPath: `/permissions/${list}/${index}`, problem: error.message });
      }
    });
  }
  if (issues.length > 0) throw new SettingsError(issues);
  return data;
}

function describeAjvError(error: ErrorObject): { jsonPath: string; problem: string } {
  const jsonPath = error.instancePath;
  switch (error.keyword) {
    case "additionalProperties": {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      return { jsonPath: `${jsonPath}/${key}`, problem: `unknown setting "${key}"` };
    }
    case "enum": {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      return { jsonPath, problem: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}` };
    }
    case "pattern":
      return {
        jsonPath,
        problem:
          jsonPath === "/baseUrl" ? "must be an http:// or https:// URL" : `${error.message ?? "is invalid"}`,
      };
    default:
      return { jsonPath, problem: error.message ?? "is invalid" };
  }
}

/** Reads a settings file; undefined when it does not exist. Throws SettingsError otherwise. */
export async function readSettingsFile(
  file: string,
  warnings?: SettingsIssue[],
): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new SettingsError([{ file, jsonPath: "", problem: `cannot read: ${(error as Error).message}` }]);
  }
  return parseSettings(text, file, warnings);
}

/**
 * Reads the hooks of a Claude Code project settings file (.claude/settings.json). Only `hooks`
 * is taken: its other keys mean other things to Claude Code (permission rule syntax, env).
 */
export async function readClaudeHooks(
  file: string,
  warnings?: SettingsIssue[],
): Promise<HooksSetting | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new SettingsError([{ file, jsonPath: "", problem: `cannot read: ${(error as Error).message}` }]);
  }
  const data = parseJsonText(text, file) as { hooks?: unknown } | null;
  if (data === null || typeof data !== "object" || data.hooks === undefined) return undefined;
  return (await parseSettings(JSON.stringify({ hooks: data.hooks }), file, warnings)).hooks;
}

/** Merges settings in order: later scalars win, permission rule lists and env allow-lists concatenate. */
export function mergeSettings(
  layers: readonly Settings[],
  sources: readonly string[] = [],
  /** The index of the user's own layer: the sandbox starts from it and later layers only tighten it. */
  userLayer = 0,
): ResolvedSettings {
  const merged: Record<string, unknown> = {};
  const permissions = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  const envAllow: string[] = [];
  const additionalDirectories: string[] = [];
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (key === "permissions" || key === "env" || key === "sandbox" || key === "$schema" || key === "hooks")
        continue;
      // Language servers merge by id, so a project adds its own to the user's.
      if (key === "lsp") {
        const before = (merged.lsp ?? {}) as LspSettings;
        const next = value as LspSettings;
        merged.lsp = { ...before, ...next, servers: { ...before.servers, ...next.servers } };
        continue;
      }
      merged[key] = key === "mode" ? toPermissionMode(value as string) : value;
    }
    if (layer.permissions?.defaultMode !== undefined && layer.mode === undefined)
      merged.mode = toPermissionMode(layer.permissions.defaultMode);
    for (const dir of layer.permissions?.additionalDirectories ?? [])
      if (!additionalDirectories.includes(dir)) additionalDirectories.push(dir);
    permissions.allow.push(...(layer.permissions?.allow ?? []));
    permissions.ask.push(...(layer.permissions?.ask ?? []));
    permissions.deny.push(...(layer.permissions?.deny ?? []));
    for (const name of layer.env?.allow ?? []) if (!envAllow.includes(name)) envAllow.push(name);
  }
  // The first layer is the user's; every later one may only tighten the sandbox.
  let sandbox = layers[userLayer]?.sandbox;
  for (const layer of layers.slice(userLayer + 1)) sandbox = tightenSandbox(sandbox, layer.sandbox);
  return {
    ...(merged as Omit<
      ResolvedSettings,
      | "permissions"
      | "env"
      | "sources"
      | "additionalDirectories"
      | "hooks"
      | "withheld"
      | "projectTrusted"
      | "variables"
      | "unhonoured"
    >),
    permissions,
    env: { allow: envAllow },
    additionalDirectories,
    ...(sandbox !== undefined && { sandbox }),
    sources,
    variables: {},
    unhonoured: [],
    withheld: [],
    projectTrusted: false,
  };
}

/**
 * Decides whether an untrusted-looking project's sensitive settings apply; gets the setting
 * names that would be withheld. Resolves true to apply them.
 */
export type ProjectTrustCheck = (withheld: readonly string[]) => boolean | Promise<boolean>;

/**
 * Loads the settings of attractor and of Claude Code, lowest precedence first:
 * `<claudeDir>/settings.json` (~/.claude), `<home>/settings.json`, the project's
 * `.claude/settings.json`, `.attractor/settings.json`, `.claude/settings.local.json`, then Claude
 * Code's managed settings. Later scalars win; rule lists, directories and variables add up. JSON
 * with comments is accepted; missing files are fine; unknown keys of attractor's files are
 * warnings and Claude Code keys attractor does not honour are listed in `unhonoured`; a broken
 * file throws SettingsError listing every problem of all files. The project's security-sensitive
 * settings (see splitUntrustedSettings), its `env` and its hooks apply only when `trust` resolves
 * true (`projectTrusted`); without `trust` they never do. Deny and ask rules always apply.
 */
export async function loadSettings(options: {
  home: string;
  projectDir: string;
  trust?: ProjectTrustCheck;
  /** Claude Code's user directory (default $CLAUDE_CONFIG_DIR or ~/.claude); null reads none. */
  claudeDir?: string | null;
  /** Claude Code's managed settings file (default the platform's); null reads none. */
  managedSettingsFile?: string | null;
  /** Which of Claude Code's user, project and local files to read (all when undefined). */
  claudeSources?: readonly ("user" | "project" | "local")[];
  /** Which of attractor's own user and project files to read (both when undefined). */
  ownSources?: readonly ("user" | "project")[];
}): Promise<ResolvedSettings> {
  const own = (source: "user" | "project") =>
    options.ownSources === undefined || options.ownSources.includes(source);
  const wanted = (source: "user" | "project" | "local") =>
    options.claudeSources === undefined || options.claudeSources.includes(source);
  const userFile = userSettingsPath(options.home);
  const projectFile = projectSettingsPath(options.projectDir);
  const issues: SettingsIssue[] = [];
  const warnings: SettingsIssue[] = [];
  const read = async <T>(file: string, reader: (f: string) => Promise<T | undefined>) => {
    try {
      return await reader(file);
    } catch (error) {
      if (error instanceof ClaudeSettingsError) {
        issues.push({
          file: error.file,
          jsonPath: "",
          problem: error.problem,
          ...(error.line !== undefined && { line: error.line, column: error.column ?? 1 }),
        });
        return undefined;
      }
      if (!(error instanceof SettingsError)) throw error;
      issues.push(...error.issues);
      return undefined;
    }
  };
  // Claude Code's hooks are validated as attractor's (the format is the same).
  const readClaude = (file: string, scope: ClaudeSettingsScope) =>
    read(file, async (f) => {
      const layer = await readClaudeSettings(f, scope);
      if (layer?.settings.hooks === undefined) return layer;
      const hooks = (await parseSettings(JSON.stringify({ hooks: layer.settings.hooks }), f, warnings)).hooks;
      return { ...layer, settings: { ...layer.settings, hooks } };
    });
  const claudeDir = options.claudeDir === undefined ? claudeUserDir() : options.claudeDir;
  const claudeUserFile = claudeDir === null || !wanted("user") ? undefined : join(claudeDir, "settings.json");
  const managedFile =
    options.managedSettingsFile === undefined ? claudeManagedSettingsPath() : options.managedSettingsFile;
  const claudeUser =
    claudeUserFile === undefined ||
    resolve(claudeUserFile) === resolve(claudeSettingsPath(options.projectDir))
      ? undefined
      : await readClaude(claudeUserFile, "user");
  const user = own("user") ? await read(userFile, (f) => readSettingsFile(f, warnings)) : undefined;
  // Run from the home directory itself, the project's file is the user's own: read it once, as the user's.
  const project =
    resolve(projectFile) === resolve(userFile) || !own("project")
      ? undefined
      : await read(projectFile, (f) => readSettingsFile(f, warnings));
  // Run from the home directory, .claude/settings.json is the user's own: read once, as the user's.
  const claudeProjectFile = claudeSettingsPath(options.projectDir);
  const claudeProject =
    !wanted("project") ||
    (claudeUserFile !== undefined && resolve(claudeUserFile) === resolve(claudeProjectFile))
      ? undefined
      : await readClaude(claudeProjectFile, "project");
  const claudeLocal = wanted("local")
    ? await readClaude(claudeLocalSettingsPath(options.projectDir), "project")
    : undefined;
  const managed = managedFile == null ? undefined : await readClaude(managedFile, "managed");
  if (issues.length > 0) throw new SettingsError(issues);

  const hooks: HookSource[] = [];
  if (claudeUser?.settings.hooks)
    hooks.push({ file: claudeUser.file, scope: "user", hooks: claudeUser.settings.hooks });
  if (user?.hooks) hooks.push({ file: userFile, scope: "user", hooks: user.hooks });
  if (project?.hooks) hooks.push({ file: projectFile, scope: "project", hooks: project.hooks });
  const claudeProjectLayers = [claudeProject, claudeLocal].filter((l) => l !== undefined);
  for (const layer of claudeProjectLayers)
    if (layer.settings.hooks) hooks.push({ file: layer.file, scope: "project", hooks: layer.settings.hooks });
  if (managed?.settings.hooks)
    hooks.push({ file: managed.file, scope: "user", hooks: managed.settings.hooks });

  const relative = (f: string) => f.slice(resolve(options.projectDir).length + 1);
  const split = project ? splitUntrustedSettings(project) : { harmless: {}, withheld: [] };
  const claudeSplits = claudeProjectLayers.map((layer) => {
    const { hooks: _hooks, ...rest } = layer.settings;
    const s = splitUntrustedSettings(rest);
    const withheld = [...s.withheld, ...(Object.keys(layer.variables).length > 0 ? ["env"] : [])];
    return { layer, harmless: s.harmless, withheld: withheld.map((w) => `${w} (${relative(layer.file)})`) };
  });
  const withheld = [...split.withheld, ...claudeSplits.flatMap((s) => s.withheld)];
  const gated = [
    ...withheld,
    ...claudeProjectLayers.filter((l) => l.settings.hooks).map((l) => `hooks of ${relative(l.file)}`),
  ];
  const projectTrusted = gated.length > 0 && (await options.trust?.(gated)) === true;
  const claudeLayer = (l: ClaudeSettingsLayer | undefined, trusted: boolean): Settings => {
    if (!l) return {};
    const { hooks: _hooks, ...rest } = l.settings;
    return trusted ? rest : (claudeSplits.find((s) => s.layer === l)?.harmless ?? {});
  };
  // The attractor user's layer is the one the sandbox starts from: the others may only tighten it.
  const layers: Settings[] = [
    claudeLayer(claudeUser, true),
    user ?? {},
    claudeLayer(claudeProject, projectTrusted),
    project ? (projectTrusted ? project : split.harmless) : {},
    claudeLayer(claudeLocal, projectTrusted),
    claudeLayer(managed, true),
  ];
  const sources = [
    claudeUser?.file,
    user ? userFile : undefined,
    claudeProject?.file,
    project ? projectFile : undefined,
    claudeLocal?.file,
    managed?.file,
  ].filter((f): f is string => f !== undefined);
  const variables: Record<string, string> = {};
  for (const layer of [claudeUser, claudeProject, claudeLocal, managed]) {
    if (!layer || (layer.scope === "project" && !projectTrusted)) continue;
    Object.assign(variables, layer.variables);
  }
  const unhonoured = [claudeUser, claudeProject, claudeLocal, managed].flatMap((l) => l?.unhonoured ?? []);
  return {
    ...mergeSettings(layers, sources, 1),
    hooks,
    warnings,
    variables,
    unhonoured,
    withheld: projectTrusted ? [] : withheld,
    projectTrusted,
  };
}
