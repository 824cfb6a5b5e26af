export {
  applyEdit,
  EDIT_FALLBACKS,
  EditError,
  type EditErrorCode,
  type EditOptions,
  type EditResult,
} from "./apply-edit.js";
export { normalizeUnicode, TOLERANCE_NAMES, type Tolerance } from "./normalize.js";
export { NotTextError } from "./text-file.js";
