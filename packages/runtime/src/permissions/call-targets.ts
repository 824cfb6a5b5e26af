import { patchPaths as parsedPatchPaths, parsePatch } from "@attractor/agent";
import { PatchParseError } from "@attractor/agent/internals";
import { globReach } from "./paths.js";

/** What a tool call does, as far as permissions care. */
export type CallKind = "read" | "edit" | "shell" | "agent" | "interaction" | "other";

const KINDS: Readonly<Record<string, CallKind>> = {
  read_file: "read",
  read_many_files: "read",
  grep: "read",
  glob: "read",
  list_dir: "read",
  write_file: "edit",
  edit_file: "edit",
  apply_patch: "edit",
  notebook_edit: "edit",
  shell: "shell",
  spawn_agent: "agent",
  send_input: "agent",
  wait: "agent",
  close_agent: "agent",
  todo: "interaction",
  ask_user: "interaction",
  // Stops a command the session itself started in the background.
  shell_kill: "interaction",
  // Code intelligence reads the files it is pointed at (and shows lines of the files it finds).
  find_definition: "read",
  find_references: "read",
  get_document_symbols: "read",
  find_symbol: "read",
  get_hover_info: "read",
  get_call_hierarchy: "read",
  find_implementations: "read",
  get_type_hierarchy: "read",
  get_diagnostics: "read",
};

/** The permission kind of a known tool; "other" for tools this module does not know. */
export function callKind(toolName: string): CallKind {
  return KINDS[toolName] ?? "other";
}

/**
 * The file paths a read or edit call touches, as written in its arguments (possibly relative).
 * Read tools without a path work in the current directory ("."). Unknown tools give [].
 */
export function callPaths(toolName: string, args: Readonly<Record<string, unknown>>): string[] {
  const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);
  switch (toolName) {
    case "read_file":
    case "write_file":
    case "edit_file": {
      const p = str(args.file_path) ?? str(args.path);
      return p ? [p] : [];
    }
    case "notebook_edit": {
      const p = str(args.notebook_path);
      return p ? [p] : [];
    }
    case "read_many_files": {
      const list = args.paths ?? args.file_paths;
      if (!Array.isArray(list)) return [];
      // Entries may be glob patterns (`src/**/*.ts`, `{..,src}/*`): judged by where they reach.
      return list
        .filter((p): p is string => typeof p === "string")
        .map((p) => (/[*?[\]{}]/.test(p) ? globReach(p, ".") : p));
    }
    case "grep":
    case "list_dir":
      return [str(args.path) ?? str(args.dir_path) ?? "."];
    case "glob": {
      // The pattern itself can climb out (`../*`): what it can reach is judged too.
      const base = str(args.path) ?? str(args.dir_path) ?? ".";
      const pattern = str(args.pattern);
      const reach = pattern === undefined ? base : globReach(pattern, base);
      return reach === base ? [base] : [base, reach];
    }
    case "spawn_agent": {
      const dir = str(args.working_dir);
      return dir ? [dir] : [];
    }
    case "find_definition":
    case "find_references":
    case "get_document_symbols":
    case "find_symbol":
    case "get_hover_info":
    case "get_call_hierarchy":
    case "find_implementations":
    case "get_type_hierarchy":
    case "get_diagnostics":
      return [str(args.path) ?? "."];
    case "apply_patch":
      return patchPaths(typeof args.patch === "string" ? args.patch : "");
    default:
      return [];
  }
}

/**
 * Paths a v4a patch adds, updates, deletes or moves to, read by the apply_patch tool's own parser
 * so the check sees exactly what the tool will touch. A patch that does not parse names nothing:
 * the tool refuses it with the same parse error before touching any file.
 */
export function patchPaths(patch: string): string[] {
  try {
    return parsedPatchPaths(parsePatch(patch));
  } catch (error) {
    if (error instanceof PatchParseError) return [];
    throw error;
  }
}
