export {
  applyPatch,
  formatPatchSummary,
  type PatchFileChange,
  type PatchResult,
  planPatch,
} from "./apply.js";
export { applyChunks, type ChunksResult, type HunkNote } from "./apply-chunks.js";
export { parsePatch, patchPaths } from "./parser.js";
export { applyPatchExecutor, applyPatchTool } from "./tool.js";
export {
  type ParsedPatch,
  PatchApplyError,
  type PatchChunk,
  type PatchOperation,
  PatchParseError,
} from "./types.js";
