import { homedir } from "node:os";
import { compileGlob } from "./glob-matcher.js";

/** A rule string that cannot be understood. */
export class RuleSyntaxError extends Error {
  override readonly name = "RuleSyntaxError";
  constructor(
    readonly rule: string,
    problem: string,
  ) {
    super(`invalid permission rule ${JSON.stringify(rule)}: ${problem}`);
  }
}

/** A parsed permission rule: `tool` or `tool(pattern)`. */
export interface PermissionRule {
  /** As written, for messages. */
  readonly source: string;
  /** Tool names the rule applies to (a group such as `edit` expands to several), or ["*"]. */
  readonly tools: readonly string[];
  /** Command pattern for shell, path glob for file tools; undefined matches every call. */
  readonly pattern?: string;
}

/** Tool groups usable in rules, so `edit(src/**)` covers every tool that edits files. */
export const TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  edit: ["write_file", "edit_file", "apply_patch", "notebook_edit"],
  read: ["read_file", "read_many_files", "grep", "glob", "list_dir"],
};

/** Names other agents use for the same tools, accepted in rules. */
const TOOL_ALIASES: Readonly<Record<string, string>> = {
  bash: "shell",
  write: "write_file",
  multiedit: "edit_file",
  ls: "list_dir",
  notebookedit: "notebook_edit",
  webfetch: "web_fetch",
  websearch: "web_search",
  bashoutput: "shell_output",
  killshell: "shell_kill",
  killbash: "shell_kill",
};

/** Parses `tool` or `tool(pattern)`; throws RuleSyntaxError. */
export function parseRule(source: string): PermissionRule {
  const text = source.trim();
  const m = /^([A-Za-z0-9_.*-]+)(?:\(([\s\S]*)\))?$/.exec(text);
  if (!m) {
    if (/^[A-Za-z0-9_.*-]+\(/.test(text))
      throw new RuleSyntaxError(source, "missing the closing parenthesis");
    throw new RuleSyntaxError(
      source,
      "expected a tool name, optionally followed by (pattern), e.g. shell(npm test:*)",
    );
  }
  const name = m[1] as string;
  const pattern = m[2];
  if (pattern !== undefined && pattern.trim() === "")
    throw new RuleSyntaxError(source, "the pattern in parentheses is empty");
  if (pattern !== undefined && pattern.length > MAX_PATTERN_LENGTH)
    throw new RuleSyntaxError(source, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  const lower = name.toLowerCase();
  const canonical = TOOL_ALIASES[lower] ?? lower;
  const tools = TOOL_GROUPS[canonical] ?? [canonical];
  if (pattern !== undefined && tools.includes("web_fetch")) {
    if (!/^domain:\S+$/i.test(pattern.trim()))
      throw new RuleSyntaxError(
        source,
        "a web_fetch rule names a domain, e.g. web_fetch(domain:docs.python.org)",
      );
    return { source, tools, pattern: pattern.trim() };
  }
  // A search has no path or command to match: a pattern would silently match nothing.
  if (pattern !== undefined && tools.includes("web_search"))
    throw new RuleSyntaxError(
      source,
      "a web_search rule takes no pattern: it names the tool alone, e.g. WebSearch",
    );
  if (
    pattern !== undefined &&
    tools.every((t) => t !== "shell") &&
    pattern.includes(":*") &&
    !pattern.endsWith(":*")
  ) {
    throw new RuleSyntaxError(source, "':*' may only end a command pattern");
  }
  if (pattern !== undefined && tools.every((t) => t !== "shell")) {
    try {
      compileGlob(pattern.trim());
    } catch (error) {
      throw new RuleSyntaxError(source, (error as Error).message);
    }
  }
  return pattern === undefined ? { source, tools } : { source, tools, pattern: pattern.trim() };
}

/** Parses a list of rule strings, ignoring none: the first bad one throws. */
export function parseRules(sources: readonly string[]): PermissionRule[] {
  return sources.map(parseRule);
}

/** True when a rule names this tool. */
export function ruleAppliesTo(rule: PermissionRule, toolName: string): boolean {
  const name = toolName.toLowerCase();
  return (
    rule.tools.includes("*") || rule.tools.includes(name) || rule.tools.some((t) => mcpRuleCovers(t, name))
  );
}

/**
 * MCP rules as Claude Code reads them: `mcp__server` and `mcp__server__*` name every tool of that
 * server (`mcp__server__tool` names one, matched as any name is).
 */
function mcpRuleCovers(ruleTool: string, name: string): boolean {
  if (!ruleTool.startsWith("mcp__") || !name.startsWith("mcp__")) return false;
  if (ruleTool.endsWith("__*")) return name.startsWith(ruleTool.slice(0, -1));
  return !ruleTool.slice(5).includes("__") && name.startsWith(`${ruleTool}__`);
}

/** Longer patterns are refused: no rule needs them, and matching cost grows with length. */
export const MAX_PATTERN_LENGTH = 1024;

const commandMatchers = new Map<string, (text: string) => boolean>();

/**
 * Matches one simple command's text: `prefix:*` matches the prefix as whole words, a pattern with
 * `*` is a wildcard over the whole text, anything else must equal the text. Wildcards are matched
 * greedily segment by segment, in time linear in the text for each segment, never by backtracking.
 */
export function commandPatternMatches(pattern: string, text: string): boolean {
  let matcher = commandMatchers.get(pattern);
  if (!matcher) {
    if (pattern.endsWith(":*")) {
      const prefix = pattern.slice(0, -2).trim();
      matcher = (t) => t === prefix || t.startsWith(`${prefix} `);
    } else if (pattern.includes("*")) {
      matcher = wildcardMatcher(pattern);
    } else {
      matcher = (t) => t === pattern;
    }
    commandMatchers.set(pattern, matcher);
  }
  return matcher(text);
}

/**
 * A `*`-only glob as literal segments: the first must start the text, the last end it, and each
 * middle one is found left to right after the previous. Taking the earliest occurrence is always
 * right for `*`-only globs, so no backtracking is needed.
 */
function wildcardMatcher(pattern: string): (text: string) => boolean {
  const segments = pattern.split("*");
  const first = segments[0] as string;
  const last = segments[segments.length - 1] as string;
  const middle = segments.slice(1, -1).filter((s) => s !== "");
  return (text) => {
    if (text.length < first.length + last.length) return false;
    if (!text.startsWith(first) || !text.endsWith(last)) return false;
    let at = first.length;
    const end = text.length - last.length;
    for (const segment of middle) {
      const found = text.indexOf(segment, at);
      if (found < 0 || found + segment.length > end) return false;
      at = found + segment.length;
    }
    return true;
  };
}

const pathMatchers = new Map<string, { absolute: boolean; test: (path: string) => boolean }>();

/**
 * Matches a path glob against a file, reading the pattern as Claude Code does: `//abs/path` is an
 * absolute path, `~/path` is under the home directory, and `/path`, `./path` or `path` are
 * relative to the project (they see the project-relative posix path, so never match outside it).
 */
export function pathPatternMatches(
  pattern: string,
  relativePath: string | undefined,
  absolutePath: string,
): boolean {
  let matcher = pathMatchers.get(pattern);
  if (!matcher) {
    const absolute = pattern.startsWith("//") || pattern.startsWith("~/");
    const glob = pattern.startsWith("//")
      ? pattern.slice(1)
      : pattern.startsWith("~/")
        ? `${homedir()}/${pattern.slice(2)}`
        : pattern.replace(/^\.?\//, "");
    matcher = { absolute, test: compileGlob(glob) };
    pathMatchers.set(pattern, matcher);
  }
  if (matcher.absolute) return matcher.test(absolutePath);
  return relativePath !== undefined && matcher.test(relativePath);
}

/** The rule pattern naming exactly this file: project-relative inside it, `//absolute` outside. */
export function pathRulePattern(relativePath: string | undefined, absolutePath: string): string {
  return relativePath !== undefined ? escapeGlob(relativePath) : `/${escapeGlob(absolutePath)}`;
}

/** Escapes glob metacharacters so a literal path can be used as a rule pattern. */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
}

/**
 * The rules among `sources` that name no tool this session has (`known` says which names exist),
 * so they can be reported rather than silently never matching. MCP tool rules (`mcp__…`) are left
 * out: their servers may connect later.
 */
export function rulesForUnknownTools(
  sources: readonly string[],
  known: (toolName: string) => boolean,
): string[] {
  return sources.filter((source) => {
    let rule: PermissionRule;
    try {
      rule = parseRule(source);
    } catch {
      return false;
    }
    if (rule.tools.includes("*")) return false;
    return rule.tools.every((tool) => !tool.startsWith("mcp__") && !known(tool));
  });
}
