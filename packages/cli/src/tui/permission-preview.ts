import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { applyEdit, inFileConventions, unifiedDiff } from "@attractor/agent/internals";
import type { PermissionRequest } from "@attractor/runtime/permissions";
import { visibleControls } from "../terminal/visible-controls.js";

/** What a permission prompt shows of the call: the command, the change as a diff, or the arguments. */
export type PermissionPreview =
  | { readonly kind: "command"; readonly command: string }
  | { readonly kind: "diff"; readonly diff: string }
  | { readonly kind: "arguments"; readonly text: string }
  | { readonly kind: "none" };

/** Files larger than this are not read for a preview; the edit's own strings are diffed instead. */
const MAX_PREVIEW_FILE_BYTES = 2 * 1024 * 1024;

/** Reads a file for a preview; undefined when it does not exist or is too large. */
export type PreviewReader = (absolutePath: string) => string | undefined;

/** Builds the preview of a permission request; file contents come from `read` (the disk by default). */
export function permissionPreview(
  request: PermissionRequest,
  projectDir: string,
  read: PreviewReader = readForPreview,
): PermissionPreview {
  const args = request.call.arguments;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  if (request.kind === "shell" || request.command !== undefined)
    return { kind: "command", command: request.command ?? str(args.command) ?? "" };
  const path = str(args.file_path) ?? str(args.path);
  switch (request.call.toolName) {
    case "edit_file": {
      const oldText = str(args.old_string) ?? "";
      const newText = str(args.new_string) ?? "";
      if (!path) return { kind: "diff", diff: unifiedDiff("file", oldText, newText) };
      const before = read(resolve(projectDir, path));
      if (before !== undefined && oldText !== "") {
        // The edit as the tool will make it, after its normalisations; when the tool will refuse
        // it, what was asked for.
        try {
          const replaceAll = args.replace_all === true || args.allow_multiple === true;
          const after = applyEdit(before, oldText, newText, { replaceAll }).content;
          return { kind: "diff", diff: unifiedDiff(path, before, after) };
        } catch {
          return { kind: "diff", diff: unifiedDiff(path, oldText, newText) };
        }
      }
      return { kind: "diff", diff: unifiedDiff(path, oldText, newText) };
    }
    case "write_file": {
      const content = str(args.content) ?? "";
      const before = path ? read(resolve(projectDir, path)) : undefined;
      const after = before === undefined ? content : inFileConventions(before, content);
      return { kind: "diff", diff: unifiedDiff(path ?? "file", before, after) };
    }
    case "apply_patch": {
      const patch = str(args.patch) ?? str(args.input);
      return patch ? { kind: "diff", diff: patch } : { kind: "none" };
    }
    default: {
      const text = JSON.stringify(args, null, 2);
      return text === "{}" ? { kind: "none" } : { kind: "arguments", text };
    }
  }
}

// The file is shown as the request is (see the bridge): control sequences made visible, so the
// edit's strings still match it.
function readForPreview(absolutePath: string): string | undefined {
  try {
    if (statSync(absolutePath).size > MAX_PREVIEW_FILE_BYTES) return undefined;
    return visibleControls(readFileSync(absolutePath, "utf8"));
  } catch {
    return undefined;
  }
}
