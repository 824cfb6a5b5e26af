import { applyPatchTool } from "../tools/apply-patch/tool.js";
import { editFileTool } from "../tools/edit-file.js";
import { globTool } from "../tools/glob.js";
import { grepTool } from "../tools/grep.js";
import { listDirTool } from "../tools/list-dir.js";
import { readFileTool } from "../tools/read-file.js";
import { readManyFilesTool } from "../tools/read-many-files.js";
import { shellTool } from "../tools/shell.js";
import { writeFileTool } from "../tools/write-file.js";
import type { ToolFactories } from "./toolset.js";

/** The built-in tool implementations profiles use unless a host substitutes its own. */
export const DEFAULT_TOOL_FACTORIES: ToolFactories = {
  readFile: readFileTool,
  writeFile: writeFileTool,
  editFile: (options) => editFileTool(options),
  applyPatch: applyPatchTool,
  readManyFiles: readManyFilesTool,
  shell: (options) => shellTool({ defaultTimeoutMs: options.defaultTimeoutMs }),
  grep: (options) => grepTool(options),
  glob: globTool,
  listDir: listDirTool,
};

/** The built-in factories with the host's substitutes applied. */
export function resolveToolFactories(overrides?: Partial<ToolFactories>): ToolFactories {
  return overrides ? { ...DEFAULT_TOOL_FACTORIES, ...overrides } : DEFAULT_TOOL_FACTORIES;
}
