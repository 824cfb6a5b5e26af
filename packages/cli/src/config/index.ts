export { attractorHome, projectSettingsPath, userSettingsPath } from "./home.js";
export { findJsonSyntaxError, type JsonSyntaxProblem } from "./json-position.js";
export {
  formatIssue,
  loadSettings,
  mergeSettings,
  parseSettings,
  type ResolvedSettings,
  readSettingsFile,
  SettingsError,
  type SettingsIssue,
} from "./settings.js";
export {
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionRuleLists,
  REASONING_EFFORTS,
  SETTINGS_SCHEMA,
  type Settings,
  TOOL_MODES,
} from "./settings-schema.js";
