import { type Static, Type } from "@sinclair/typebox";
import type { ExecutionEnvironment } from "../../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../../types/tool.js";
import { defineBuiltinTool } from "../define-tool.js";
import { unifiedDiff } from "../diff.js";
import { expectedFailure } from "../shared/tool-errors.js";
import { applyPatch, formatPatchSummary } from "./apply.js";
import { parsePatch, patchPaths } from "./parser.js";

const DESCRIPTION = `Edits files with a patch in the v4a format. The whole patch is checked before anything is written: if any part fails, no file changes.

*** Begin Patch
*** Add File: path/to/new.py
+line of the new file
*** Update File: path/to/existing.py
*** Move to: path/to/renamed.py   (optional)
@@ def function_or_class_line
 context line (3 lines above and below a change, unchanged)
-removed line
+added line
 context line
*** Delete File: path/to/obsolete.py
*** End Patch

Each hunk starts with @@, optionally followed by a line of the file (a class or function header) that locates it; several @@ lines narrow it down further. Hunks of one file must be in file order. Mark a hunk that ends at the end of the file with "*** End of File". Paths are relative to the working directory. Add File over an existing file replaces it, and so does Move to onto an existing file (the result says so); Update and Delete fail if the file does not exist. Context and removed lines must match the file and fit exactly one place after the previous hunk (add context or an @@ line when a hunk could fit several); a hunk whose @@ line does not lead to it is placed by its context alone when that fits one place. Trailing whitespace, one indentation shift or tabs written as spaces (and the reverse), and typographic quotes are tolerated: added lines are then re-expressed in the file's own indentation and punctuation. A refused hunk is shown next to the closest lines of the file.`;

/** Executes apply_patch: applies the patch all-or-nothing and lists the files with A/M/D. */
export async function applyPatchExecutor(
  args: ApplyPatchArgs,
  env: ExecutionEnvironment,
): Promise<ToolOutput> {
  try {
    const result = await applyPatch(args.patch, env);
    const diff = result.changes
      .map((c) =>
        unifiedDiff(c.movedFrom ?? c.path, c.before, c.status === "D" ? undefined : c.after, c.path),
      )
      .join("");
    return {
      output: formatPatchSummary(result),
      details: { paths: result.changes.map((c) => c.path), diff },
    };
  } catch (err) {
    return expectedFailure(err, "apply_patch failed, no file was changed: ");
  }
}

const APPLY_PATCH_PARAMETERS = Type.Object(
  { patch: Type.String({ description: "The patch text, from '*** Begin Patch' to '*** End Patch'." }) },
  { additionalProperties: false },
);

/** apply_patch's arguments. */
export type ApplyPatchArgs = Static<typeof APPLY_PATCH_PARAMETERS>;

/** The apply_patch tool (codex's v4a format); targets are every path the patch names. */
export function applyPatchTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "apply_patch",
    description: DESCRIPTION,
    parameters: APPLY_PATCH_PARAMETERS,
    execute: (args, { environment }) => applyPatchExecutor(args, environment),
    targets: (args) => {
      try {
        return patchPaths(parsePatch(args.patch));
      } catch {
        return [];
      }
    },
  });
}
