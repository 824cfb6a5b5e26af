import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { summarizeCall } from "@attractor/runtime";
import { callPaths } from "@attractor/runtime/permissions";
import type { FileChange } from "./client-environment.js";

type Args = Readonly<Record<string, unknown>>;

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  read_many_files: "read",
  list_dir: "read",
  write_file: "edit",
  edit_file: "edit",
  apply_patch: "edit",
  grep: "search",
  glob: "search",
  shell: "execute",
  todo: "think",
  spawn_agent: "think",
  send_input: "think",
  wait: "think",
  close_agent: "think",
  skill: "read",
  web_fetch: "fetch",
  fetch: "fetch",
  web_search: "fetch",
  find_definition: "search",
  find_references: "search",
  find_symbol: "search",
  find_implementations: "search",
  get_document_symbols: "read",
  get_hover_info: "read",
  get_call_hierarchy: "search",
  get_type_hierarchy: "search",
  get_diagnostics: "read",
};

/**
 * The ACP kind of a tool call, which editors pick an icon and a follow mode by: a patch that only
 * deletes files is a deletion, one that only moves them a move.
 */
export function toolKind(toolName: string, args: Args): ToolKind {
  if (toolName === "apply_patch" && typeof args.patch === "string") {
    const ops = [...args.patch.matchAll(/^\*\*\* (Add|Update|Delete) File: /gm)].map((m) => m[1]);
    const moves = /^\*\*\* Move to: /m.test(args.patch);
    if (ops.length > 0 && ops.every((op) => op === "Delete")) return "delete";
    if (moves && ops.every((op) => op === "Update") && !/^[+-](?![+-]{2})/m.test(args.patch)) return "move";
  }
  if (toolName.startsWith("mcp__") && /fetch|http|url|web/i.test(toolName)) return "fetch";
  return KINDS[toolName] ?? "other";
}

/** The one-line title an editor shows for a call: `edit_file src/a.ts`, `shell npm test`. */
export function toolTitle(toolName: string, args: Args): string {
  return summarizeCall(toolName, args, 120);
}

/** Absolute paths the call names in its arguments. */
export function callFiles(toolName: string, args: Args, cwd: string): string[] {
  const paths =
    toolName === "apply_patch" && typeof args.patch === "string"
      ? [...args.patch.matchAll(/^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/gm)].map((m) =>
          (m[1] as string).trim(),
        )
      : callPaths(toolName, args);
  return [...new Set(paths.filter((p) => p !== "." && !/[*?[\]{}]/.test(p)).map((p) => absolute(p, cwd)))];
}

/** Where the call works, so an editor can follow it: each file, at the line read from when known. */
export function callLocations(toolName: string, args: Args, cwd: string): ToolCallLocation[] {
  const line = toolName === "read_file" && typeof args.offset === "number" ? args.offset : undefined;
  return callFiles(toolName, args, cwd).map((path) => (line !== undefined ? { path, line } : { path }));
}

/** The changes as ACP diffs, with the location of each file's first changed line. */
export function changeContent(changes: readonly FileChange[]): {
  readonly content: ToolCallContent[];
  readonly locations: ToolCallLocation[];
} {
  const content: ToolCallContent[] = [];
  const locations: ToolCallLocation[] = [];
  for (const change of changes) {
    content.push({
      type: "diff",
      path: change.path,
      oldText: change.oldText ?? null,
      newText: change.newText ?? "",
    });
    const line = firstChangedLine(change.oldText ?? "", change.newText ?? "");
    locations.push(line !== undefined ? { path: change.path, line } : { path: change.path });
  }
  return { content, locations };
}

/** The 1-based number of the first line that differs; undefined when the texts are equal. */
export function firstChangedLine(before: string, after: string): number | undefined {
  if (before === after) return undefined;
  const a = before.split("\n");
  const b = after.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return Math.min(i, Math.max(b.length - 1, 0)) + 1;
}

/** A block of text as tool call content (command output, a tool's answer). */
export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** Command output as the editor shows it: in a fence, so it keeps its layout in Markdown. */
export function outputBlock(output: string): string {
  const fence = output.includes("```") ? "````" : "```";
  return `${fence}\n${output.replace(/\n$/, "")}\n${fence}`;
}

function absolute(path: string, cwd: string): string {
  if (path.startsWith("~/")) return resolve(process.env.HOME ?? cwd, path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}
