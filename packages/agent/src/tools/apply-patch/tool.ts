import type { ExecutionEnvironment } from "../../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../../types/tool.js";
import { unifiedDiff } from "../diff.js";
import { expectedFailure, stringArg } from "../shared/tool-errors.js";
import { builtinSchema } from "../schema.js";
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

Each hunk starts with @@, optionally followed by a line of the file (a class or function header) that locates it; several @@ lines narrow it down further. Hunks of one file must be in file order. Mark a hunk that ends at the end of the file with "*** End of File". Paths are relative to the working directory. Add File over an existing file replaces it, and so does Move to onto an existing file (the result says so); Update and Delete fail if the file does not exist. Context lines must match the file; whitespace and typographic quote differences are tolerated.`;

/** Executes apply_patch: applies the patch all-or-nothing and lists the files with A/M/D. */
export async function applyPatchExecutor(
  args: Readonly<Record<string, unknown>>,
  env: ExecutionEnvironment,
): Promise<ToolOutput> {
  try {
    const result = await applyPatch(stringArg(args, "patch"), env);
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

/** The apply_patch tool (codex's v4a format); targets are every path the patch names. */
export function applyPatchTool(): RegisteredTool {
  return {
    definition: {
      name: "apply_patch",
      description: DESCRIPTION,
      parameters: builtinSchema({
        type: "object",
        properties: {
          patch: {
            type: "string",
            description: "The patch text, from '*** Begin Patch' to '*** End Patch'.",
          },
        },
        required: ["patch"],
        additionalProperties: false,
      }),
    },
    executor: (args, env) => applyPatchExecutor(args, env),
    targets: (args) => {
      if (typeof args.patch !== "string") return [];
      try {
        return patchPaths(parsePatch(args.patch));
      } catch {
        return [];
      }
    },
  };
}
