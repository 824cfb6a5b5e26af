import { codeIntelligenceTitle } from "@attractor/agent";
import { patchPaths } from "@attractor/runtime/permissions";
import type { ToolCallView } from "./items.js";

/** How a tool call is labelled and summarised in its block. */
export interface ToolSummary {
  /** Short name shown in bold: Read, Edit, Shell… */
  readonly label: string;
  /** What the call is about: a path, a command, a pattern. */
  readonly target: string;
  /** One line after the call ended ("Read 42 lines", "exit 1 · 0.3 s"); undefined while running. */
  readonly line?: string;
  /** Output lines worth showing under the summary (shell output, errors), already trimmed. */
  readonly body: readonly string[];
  /** Output lines not shown. */
  readonly hiddenLines: number;
  /** A unified diff to render coloured. */
  readonly diff?: string;
  /** A web search's numbered sources, shown whole (wrapped, never cut) under the summary. */
  readonly sources?: readonly SourceLine[];
}

/** One source of a web search as its block lists it. */
export interface SourceLine {
  readonly n: number;
  readonly title: string;
  readonly url: string;
}

const LABELS: Readonly<Record<string, string>> = {
  read_file: "Read",
  read_many_files: "Read",
  write_file: "Write",
  edit_file: "Edit",
  apply_patch: "Patch",
  shell: "Shell",
  grep: "Search",
  glob: "Find",
  list_dir: "List",
  todo: "Todos",
  ask_user: "Ask",
  web_search: "Web search",
  spawn_agent: "Agent",
  send_input: "Agent",
  wait: "Agent",
  close_agent: "Agent",
};

/** Lines of shell output shown under a finished command. */
export const SHELL_PREVIEW_LINES = 5;
/** "Exit code: …" and "Duration: …", which the shell tool puts after a command's output. */
const SHELL_FOOTER_LINES = 2;
/** Lines of error output shown under a failed call. */
const ERROR_PREVIEW_LINES = 4;

/** Describes a call for its block: label, target, and once ended a one-line summary and a body. */
export function summarizeToolCall(call: ToolCallView): ToolSummary {
  const args = call.arguments;
  const label = LABELS[call.toolName] ?? codeIntelligenceTitle(call.toolName) ?? call.toolName;
  const target = targetOf(call.toolName, args);
  const result = call.result;
  if (!result) return { label, target, body: [], hiddenLines: 0 };
  const d = result.details ?? {};
  if (d.interrupted === true) return { label, target, line: "interrupted", body: [], hiddenLines: 0 };
  // A call interrupted while it ran ends in the session's note for the model: the block says it
  // in its own words (a command, as stopped; another tool, as interrupted).
  const interrupted = endsWithLine(call.output, INTERRUPTED_NOTE);
  const own = interrupted ? call.output.slice(0, -INTERRUPTED_NOTE.length).replace(/\n$/, "") : call.output;
  if (interrupted && call.toolName !== "shell")
    return { label, target, line: "interrupted", body: [], hiddenLines: 0 };
  const output = call.toolName === "shell" ? stripShellFooter(own) : own;
  const lines = output === "" ? [] : output.replace(/\n$/, "").split("\n");
  // The preview may hold fewer lines than the output; the footer lines are not counted as hidden.
  // A command that ran always ends in the two footer lines (its details then carry the duration),
  // whether or not the preview reaches them.
  const footer =
    call.toolName === "shell" && typeof d.durationMs === "number"
      ? SHELL_FOOTER_LINES
      : own === ""
        ? 0
        : own.replace(/\n$/, "").split("\n").length - lines.length;
  const total = Math.max(lines.length, result.outputLines - footer);
  // Collapsing saves room only when it hides two lines or more: "… +1 line" takes the line it hides.
  const shown = (max: number) => {
    const room = total - max === 1 && lines.length > max ? max + 1 : max;
    return { body: lines.slice(0, room), hiddenLines: Math.max(0, total - room) };
  };

  if (result.isError && call.toolName !== "shell")
    return { label, target, line: "failed", ...shown(ERROR_PREVIEW_LINES) };

  switch (call.toolName) {
    case "read_file":
      return { label, target, line: readLine(d.linesRead), body: [], hiddenLines: 0 };
    case "read_many_files":
      return { label, target, line: count(d.fileCount, "file", "Read "), body: [], hiddenLines: 0 };
    case "write_file":
    case "edit_file":
    case "apply_patch": {
      const diff = typeof d.diff === "string" && d.diff !== "" ? d.diff : undefined;
      const { added, removed } = diffStats(diff ?? "");
      // Without a diff (a replayed call, an unchanged file) the tool's own first line says it.
      const what = diff
        ? `+${added} −${removed}`
        : typeof d.bytesWritten === "number"
          ? `Wrote ${d.bytesWritten} bytes`
          : (lines[0] ?? "done");
      return { label, target, line: what, body: [], hiddenLines: 0, ...(diff && { diff }) };
    }
    case "shell": {
      // Stopped by the user (Esc): one human line, not the tool's notes for the model.
      if (lines.at(-1) === ABORTED_NOTE || interrupted) {
        const ms = typeof d.durationMs === "number" ? d.durationMs : result.durationMs;
        const before = lines.at(-1) === ABORTED_NOTE ? lines.slice(0, -1) : lines;
        const kept = before.length - SHELL_PREVIEW_LINES === 1 ? before.length : SHELL_PREVIEW_LINES;
        return {
          label,
          target,
          line: `stopped after ${seconds(ms)}`,
          body: before.slice(0, kept),
          hiddenLines: Math.max(0, before.length - kept),
        };
      }
      const exit = d.timedOut
        ? "timed out"
        : d.exitCode === null || d.exitCode === undefined
          ? "killed"
          : `exit ${d.exitCode}`;
      // The command's own run time: the call's duration also counts the permission prompt.
      const ms = typeof d.durationMs === "number" ? d.durationMs : result.durationMs;
      return {
        label,
        target,
        line: `${exit} · ${seconds(ms)}`,
        ...shown(SHELL_PREVIEW_LINES),
      };
    }
    case "grep": {
      const files = typeof d.fileCount === "number" ? ` in ${count(d.fileCount, "file")}` : "";
      return {
        label,
        target,
        line: `${count(d.matchCount, "match", "", "es")}${files}`,
        body: [],
        hiddenLines: 0,
      };
    }
    case "glob":
      return { label, target, line: count(d.fileCount, "file", "Found "), body: [], hiddenLines: 0 };
    case "list_dir": {
      const entries = typeof d.entryCount === "number" ? d.entryCount : d.fileCount;
      return { label, target, line: count(entries, "entry", "", "", "entries"), body: [], hiddenLines: 0 };
    }
    case "todo":
      return { label, target, line: "updated", body: [], hiddenLines: 0 };
    case "web_search": {
      const sources = webSearchSources(d.webSearch);
      if (sources === undefined) return { label, target, line: "done", ...shown(3) };
      const backend = (d.webSearch as { backend?: unknown }).backend;
      return {
        label,
        target,
        line: `${count(sources.length, "source")}${typeof backend === "string" ? ` · ${backend}` : ""}`,
        body: [],
        hiddenLines: 0,
        sources,
      };
    }
    case "ask_user":
      return { label, target, line: lines[0] ?? "answered", body: [], hiddenLines: 0 };
    case "find_definition":
    case "find_references":
    case "find_implementations":
    case "find_symbol":
    case "get_document_symbols":
    case "get_diagnostics":
      // The first line says what was found ("3 references to `x` in 2 files:").
      return { label, target, line: (lines[0] ?? "done").replace(/:$/, ""), body: [], hiddenLines: 0 };
    default:
      return { label, target, line: "done", ...shown(3) };
  }
}

/** The call's subject in one line. */
export function targetOf(toolName: string, args: Readonly<Record<string, unknown>>): string {
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  switch (toolName) {
    case "read_file": {
      const path = str(args.file_path) ?? str(args.path) ?? "";
      const offset = typeof args.offset === "number" ? args.offset : undefined;
      const limit = typeof args.limit === "number" ? args.limit : undefined;
      if (offset === undefined && limit === undefined) return path;
      const from = offset ?? 1;
      return `${path}:${from}${limit !== undefined ? `-${from + limit - 1}` : ""}`;
    }
    case "write_file":
    case "edit_file":
      return str(args.file_path) ?? str(args.path) ?? "";
    case "read_many_files": {
      const list = args.paths ?? args.file_paths;
      return Array.isArray(list) ? oneLine(list.join(", ")) : "";
    }
    case "apply_patch":
      return patchPaths(str(args.patch) ?? str(args.input) ?? "").join(", ");
    case "shell":
      return oneLine(str(args.command) ?? "");
    case "grep": {
      const where = str(args.path);
      return `${str(args.pattern) ?? ""}${where && where !== "." ? ` in ${where}` : ""}`;
    }
    case "glob":
      return `${str(args.pattern) ?? ""}${str(args.path) ? ` in ${str(args.path)}` : ""}`;
    case "list_dir":
      return str(args.path) ?? str(args.dir_path) ?? ".";
    case "ask_user":
      return oneLine(str(args.question) ?? "");
    case "web_search": {
      const only = Array.isArray(args.allowed_domains) ? ` (only ${args.allowed_domains.join(", ")})` : "";
      return `${oneLine(str(args.query) ?? "")}${only}`;
    }
    case "todo":
      return Array.isArray(args.todos)
        ? `${args.todos.length} item${args.todos.length === 1 ? "" : "s"}`
        : "";
    case "spawn_agent":
      return oneLine(str(args.task) ?? str(args.prompt) ?? "");
    case "find_symbol":
      return str(args.query) ?? "";
    case "find_definition":
    case "find_references":
    case "get_document_symbols":
    case "get_hover_info":
    case "get_call_hierarchy":
    case "find_implementations":
    case "get_type_hierarchy":
    case "get_diagnostics": {
      const at = typeof args.line === "number" ? `:${args.line}` : "";
      const symbol = str(args.symbolName) ? ` ${str(args.symbolName)}` : "";
      return `${str(args.path) ?? ""}${at}${symbol}`.trim() || `${toolName.replace(/_/g, " ")}`;
    }
    default: {
      const json = JSON.stringify(args);
      return json === "{}" ? "" : oneLine(json);
    }
  }
}

/** The numbered sources of a web_search report (details.webSearch), or undefined when it has none. */
function webSearchSources(report: unknown): SourceLine[] | undefined {
  const sources = (report as { sources?: unknown } | undefined)?.sources;
  if (!Array.isArray(sources)) return undefined;
  return sources.flatMap((s: { n?: unknown; title?: unknown; url?: unknown }) =>
    typeof s.n === "number" && typeof s.url === "string"
      ? [{ n: s.n, url: s.url, title: typeof s.title === "string" ? oneLine(s.title, 200) : s.url }]
      : [],
  );
}

/** Counts of added and removed lines in a unified diff (file headers excluded). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { added, removed };
}

/** The shell tool appends "Exit code: …" and "Duration: …" lines; the summary line says both. */
/** The line the shell tool adds for the model when the user stopped the command. */
const ABORTED_NOTE = "[Command was aborted.]";
/** The line the session adds for the model to the output of a call the user interrupted as it ran. */
const INTERRUPTED_NOTE = "[Interrupted by the user before this tool call finished.]";

/** Whether `text`'s last line is `line`. */
function endsWithLine(text: string, line: string): boolean {
  return text === line || text.endsWith(`\n${line}`);
}

function stripShellFooter(output: string): string {
  return output.replace(/(?:\n|^)Exit code: [^\n]*\nDuration: [^\n]*\s*$/, "");
}

function readLine(lines: unknown): string {
  return typeof lines === "number" ? `Read ${count(lines, "line")}` : "Read";
}

function count(n: unknown, noun: string, prefix = "", pluralSuffix = "s", plural?: string): string {
  if (typeof n !== "number") return `${prefix}${plural ?? `${noun}${pluralSuffix}`}`.trim();
  return `${prefix}${n} ${n === 1 ? noun : (plural ?? `${noun}${pluralSuffix}`)}`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function oneLine(text: string, max = 100): string {
  const first = text.split("\n")[0] ?? "";
  const more = text.includes("\n") ? " …" : "";
  return first.length > max ? `${first.slice(0, max - 1)}…` : `${first}${more}`;
}
