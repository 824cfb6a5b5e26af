export { attractorHome, projectSettingsPath, userSettingsPath } from "./home.js";
export { findJsonSyntaxError, type JsonSyntaxProblem } from "./json-position.js";
export { tightenSandbox } from "./sandbox-settings.js";
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
  SANDBOX_MODES,
  type SandboxModeSetting,
  type SandboxSettings,
  SETTINGS_SCHEMA,
  type Settings,
  TOOL_MODES,
} from "./settings-schema.js";
