import { type Static, type TBoolean, type TOptional, Type } from "@sinclair/typebox";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";
import { unifiedDiff } from "./diff.js";
import { applyEdit } from "./edit/apply-edit.js";
import { STRATEGY_NAMES } from "./edit/edit-types.js";
import { readTextFile } from "./shared/text-file.js";
import { errorOutput, expectedFailure } from "./shared/tool-errors.js";

const DESCRIPTION = `Replaces text in a file. old_string should match the file exactly (read the file first) and be unique in it unless replace_all is true; include enough surrounding lines to make it unique. When there is no exact match, a unique match is looked for with line endings, then trailing whitespace, then typographic quotes, dashes and spaces, then a uniform indentation shift, then tabs versus spaces normalised, applied to new_string the same way; the result says which was used. Over-escaped strings (\\n or \\" written out) and read_file's line-number prefixes are read back when only that matches. A line whose text differs from the file is never matched: the edit is refused with the closest lines of the file, numbered, so the next call can copy them. Never abbreviate new_string with comments such as "// ... rest of code": such edits are refused. An empty old_string creates a new file with new_string as content. Line endings and a byte-order mark are kept.`;

/** Executes edit_file: one search/replace with the documented fallbacks; returns count and diff. */
export async function editFileExecutor(args: EditFileArgs, env: ExecutionEnvironment): Promise<ToolOutput> {
  try {
    const { file_path: path, old_string: oldString, new_string: newString } = args;
    // allow_multiple: gemini-cli's name for the same flag (see EditFileToolOptions).
    const replaceAll = args.replace_all === true || args.allow_multiple === true;

    const existing = await env.stat(path);
    if (existing?.isDirectory) return errorOutput(`${path} is a directory, not a file.`);
    if (oldString === "") {
      if (existing !== undefined && existing.size > 0) {
        return errorOutput(
          `old_string is empty but ${path} already exists and is not empty. Give the text to replace, or use write_file to replace the whole file.`,
        );
      }
      await env.writeFile(path, newString);
      const diff = unifiedDiff(path, existing === undefined ? undefined : "", newString);
      return {
        output: `${existing === undefined ? "Created" : "Wrote"} ${path} (${newString.split("\n").length} lines).\n${diff}`,
        details: { path, diff, replacements: 1 },
      };
    }
    if (existing === undefined) {
      return errorOutput(
        `File not found: ${path}. To create a file, use an empty old_string (or write_file).`,
      );
    }

    const before = await readTextFile(env, path);
    const result = applyEdit(before, oldString, newString, { replaceAll, path });
    await env.writeFile(path, result.content);
    const diff = unifiedDiff(path, before, result.content);
    const how = result.strategy === "exact" ? "" : ` (matched with ${STRATEGY_NAMES[result.strategy]})`;
    const escapes =
      result.unescaped === true
        ? ' old_string and new_string were over-escaped: their \\n, \\t and \\" were read as line breaks, tabs and quotes.'
        : result.lineNumbersRemoved === true
          ? " old_string carried read_file's line-number prefixes; they were removed from old_string and new_string."
          : "";
    const count = `${result.replacements} replacement${result.replacements === 1 ? "" : "s"}`;
    return {
      output: `Edited ${path}: ${count} at line ${result.firstLine}${how}.${escapes}\n${diff}`,
      details: {
        path,
        diff,
        replacements: result.replacements,
        strategy: result.strategy,
        ...(result.unescaped === true && { unescaped: true }),
        ...(result.lineNumbersRemoved === true && { lineNumbersRemoved: true }),
      },
    };
  } catch (err) {
    return expectedFailure(err);
  }
}

export interface EditFileToolOptions {
  /**
   * The name of the "replace every place" flag: replace_all (Claude Code, default) or
   * allow_multiple (gemini-cli's name, for the Gemini profile).
   */
  readonly multipleFlag?: "replace_all" | "allow_multiple";
}

const editFileParameters = <F extends "replace_all" | "allow_multiple">(flag: F) =>
  Type.Object(
    {
      file_path: Type.String({
        description: "Path of the file to edit (absolute or relative to the working directory).",
      }),
      old_string: Type.String({ description: "The exact text to replace." }),
      new_string: Type.String({ description: "The text to put in its place." }),
      ...({
        [flag]: Type.Optional(
          Type.Boolean({
            description: "Replace every occurrence of old_string (default false).",
            default: false,
          }),
        ),
      } as Record<F, TOptional<TBoolean>>),
    },
    { additionalProperties: false },
  );

/** edit_file's arguments, under either name of the "replace every place" flag. */
export type EditFileArgs = Static<ReturnType<typeof editFileParameters<"replace_all">>> &
  Static<ReturnType<typeof editFileParameters<"allow_multiple">>>;

/** The edit_file tool (old_string/new_string search and replace). */
export function editFileTool(options: EditFileToolOptions = {}): RegisteredTool {
  return defineBuiltinTool({
    name: "edit_file",
    description: DESCRIPTION,
    parameters: editFileParameters(options.multipleFlag ?? "replace_all"),
    execute: (args, { environment }) => editFileExecutor(args, environment),
    targets: (args) => [args.file_path],
  });
}
