import { readFile } from "node:fs/promises";
import type { ErrorObject, ValidateFunction } from "ajv";
import { type PermissionMode, toPermissionMode } from "../permissions/modes.js";
import { parseRule, RuleSyntaxError } from "../permissions/rules.js";
import { projectSettingsPath, userSettingsPath } from "./home.js";
import { findJsonSyntaxError } from "./json-position.js";
import { type PermissionRuleLists, SETTINGS_SCHEMA, type Settings } from "./settings-schema.js";

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

/** Settings after merging the user's and the project's files. */
export interface ResolvedSettings extends Omit<Settings, "permissions" | "env" | "mode"> {
  readonly permissions: PermissionRuleLists;
  /** `mode` or `permissions.defaultMode`, aliases resolved; the later file wins. */
  readonly mode?: PermissionMode;
  /** `permissions.additionalDirectories` of every file, each resolved against its file's project. */
  readonly additionalDirectories: readonly string[];
  readonly env: { readonly allow: readonly string[] };
  /** The files that existed and were read, user first. */
  readonly sources: readonly string[];
}

// Loaded and compiled on first use: most runs have no settings file, and ajv costs start-up time.
let validator: Promise<ValidateFunction<Settings>> | undefined;
const settingsValidator = (): Promise<ValidateFunction<Settings>> => {
  validator ??= import("ajv").then((mod) => {
    // A bundler may hand the CommonJS package over as a default export only.
    const { Ajv } = "Ajv" in mod ? mod : (mod as { default: typeof import("ajv") }).default;
    return new Ajv({ allErrors: true, strict: true }).compile<Settings>(SETTINGS_SCHEMA);
  });
  return validator;
};

/** Parses and validates one settings text; throws SettingsError naming `file` on any problem. */
export async function parseSettings(text: string, file: string): Promise<Settings> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const where = findJsonSyntaxError(text);
    const problem = `invalid JSON: ${where?.message ?? (error as Error).message}`;
    throw new SettingsError([
      { file, jsonPath: "", problem, line: where?.line ?? 1, column: where?.column ?? 1 },
    ]);
  }
  const validate = await settingsValidator();
  if (!validate(data)) {
    throw new SettingsError((validate.errors ?? []).map((e) => ({ file, ...describeAjvError(e) })));
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
export async function readSettingsFile(file: string): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new SettingsError([{ file, jsonPath: "", problem: `cannot read: ${(error as Error).message}` }]);
  }
  return parseSettings(text, file);
}

/** Merges settings in order: later scalars win, permission rule lists and env allow-lists concatenate. */
export function mergeSettings(
  layers: readonly Settings[],
  sources: readonly string[] = [],
): ResolvedSettings {
  const merged: Record<string, unknown> = {};
  const permissions = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  const envAllow: string[] = [];
  const additionalDirectories: string[] = [];
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (key === "permissions" || key === "env" || key === "$schema") continue;
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
  return {
    ...(merged as Omit<ResolvedSettings, "permissions" | "env" | "sources" | "additionalDirectories">),
    permissions,
    env: { allow: envAllow },
    additionalDirectories,
    sources,
  };
}

/**
 * Loads `<home>/settings.json` then `<projectDir>/.attractor/settings.json` (the project's file
 * overrides the user's). Missing files are fine; a broken one throws SettingsError listing
 * every problem of both files.
 */
export async function loadSettings(options: { home: string; projectDir: string }): Promise<ResolvedSettings> {
  const files = [userSettingsPath(options.home), projectSettingsPath(options.projectDir)];
  const layers: Settings[] = [];
  const sources: string[] = [];
  const issues: SettingsIssue[] = [];
  for (const file of files) {
    try {
      const settings = await readSettingsFile(file);
      if (settings) {
        layers.push(settings);
        sources.push(file);
      }
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new SettingsError(issues);
  return mergeSettings(layers, sources);
}
