// Everything the package's modules export, for hosts that build their own loop from its parts
// (the prompted-mode parser, compaction steps, prompt layers, the tool executors). Unlike the
// root entry it follows the code, not a stability promise: names here may change in any release.
export * from "./compaction/index.js";
export * from "./customization/index.js";
export * from "./environment/index.js";
export * from "./lsp/index.js";
export * from "./mcp/index.js";
export * from "./modes/index.js";
export * from "./profiles/index.js";
export * from "./prompted/index.js";
export * from "./prompts/index.js";
export * from "./session/index.js";
export * from "./subagent/index.js";
export * from "./tools/apply-patch/index.js";
export { ARGUMENT_DEPTH_MESSAGE, MAX_ARGUMENT_DEPTH, nestsDeeperThan } from "./tools/argument-depth.js";
export * from "./tools/ask-user.js";
export { defineTool, StringEnum, type ToolSpec } from "./tools/define-tool.js";
export { unifiedDiff } from "./tools/diff.js";
export * from "./tools/dispatch.js";
export * from "./tools/edit/index.js";
export * from "./tools/edit-file.js";
export * from "./tools/glob.js";
export * from "./tools/grep.js";
export * from "./tools/list-dir.js";
export * from "./tools/read-file.js";
export * from "./tools/read-many-files.js";
export * from "./tools/registry.js";
export { validateArguments } from "./tools/schema.js";
export { ArgumentError, ToolError } from "./tools/shared/tool-errors.js";
export * from "./tools/shell.js";
export * from "./tools/todo.js";
export * from "./tools/tool-shape.js";
export * from "./tools/write-file.js";
export * from "./truncation/index.js";
export * from "./types/index.js";
