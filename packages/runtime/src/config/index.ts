export {
  ClaudeSettingsError,
  type ClaudeSettingsLayer,
  type ClaudeSettingsScope,
  claudeManagedSettingsPath,
  claudeUserDir,
  fromClaudeSettings,
  readClaudeSettings,
} from "./claude-settings.js";
export {
  attractorHome,
  claudeLocalSettingsPath,
  claudeSettingsPath,
  projectSettingsPath,
  userSettingsPath,
} from "./home.js";
export { tightenSandbox } from "./sandbox-settings.js";
export {
  formatIssue,
  type HookSource,
  loadSettings,
  mergeSettings,
  type ProjectTrustCheck,
  parseSettings,
  type ResolvedSettings,
  readClaudeHooks,
  readSettingsFile,
  SettingsError,
  type SettingsIssue,
} from "./settings.js";
export {
  type CommandHookSetting,
  HOOK_EVENTS,
  type HookMatcherSetting,
  type HooksSetting,
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
  type WebSearchSettings,
} from "./settings-schema.js";
export {
  isProjectTrusted,
  PROJECT_SETTINGS_FILES,
  PROJECT_TRUST_FILES,
  type ProjectTrust,
  projectFingerprint,
  readProjectTrust,
  recordProjectTrust,
  type TrustDecision,
  trustStorePath,
} from "./trust.js";
export { type SplitSettings, splitUntrustedSettings } from "./trust-settings.js";
