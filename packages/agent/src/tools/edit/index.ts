export { NotTextError } from "../shared/text-file.js";
export {
  applyEdit,
  EDIT_STRATEGIES,
  EditError,
  type EditErrorCode,
  type EditOptions,
  type EditResult,
} from "./apply-edit.js";
export { type EditStrategy, STRATEGY_NAMES } from "./edit-types.js";
export { inFileConventions } from "./file-text.js";
export { normalizeUnicode, TOLERANCE_NAMES, type Tolerance } from "./normalize.js";
export { addedPlaceholders, omissionPlaceholders } from "./placeholders.js";
