export { attractorHome, projectSettingsPath, userSettingsPath } from "./home.js";
export { findJsonSyntaxError, type JsonSyntaxProblem } from "./json-position.js";
export {
  formatIssue,
  loadSettings,
  mergeSettings,
  type ProjectTrustCheck,
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
export {
  isProjectTrusted,
  PROJECT_TRUST_FILES,
  type ProjectTrust,
  projectFingerprint,
  readProjectTrust,
  recordProjectTrust,
  type TrustDecision,
  trustStorePath,
} from "./trust.js";
export { type SplitSettings, splitUntrustedSettings } from "./trust-settings.js";
