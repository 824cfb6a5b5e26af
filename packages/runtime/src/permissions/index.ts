export { bashParserReady, loadBashParser, ShellParserUnavailableError } from "./bash-parser.js";
export { type CallKind, callKind, callPaths, patchPaths } from "./call-targets.js";
export {
  type Assignment,
  type FunctionDefinition,
  type ParsedLine,
  parseCommandLine,
  type Redirect,
  type ShellContext,
  type ShellProblem,
  type SimpleCommand,
  type Word,
} from "./command-parser.js";
export {
  type AssessContext,
  assessCommandLine,
  assessShellCommand,
  type CommandAssessment,
  type LineAssessment,
  maxTier,
  type PathUse,
  type SafetyTier,
} from "./command-safety.js";
export {
  isPermissionMode,
  PERMISSION_MODE_ALIASES,
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionModeName,
  toPermissionMode,
} from "./modes.js";
export {
  canonicalPath,
  displayPath,
  extraHardLinks,
  globReach,
  isInside,
  UnresolvablePathError,
} from "./paths.js";
export { isPlainLine } from "./plain-line.js";
export {
  type AskAnswer,
  type AskFunction,
  type AskReply,
  createPermissionPolicy,
  headlessMessage,
  type PermissionAnswer,
  type PermissionDecision,
  type PermissionEvaluation,
  type PermissionPolicy,
  type PermissionPolicyOptions,
  type PermissionRequest,
  type ToolTraits,
} from "./policy.js";
export {
  commandPatternMatches,
  escapeGlob,
  type PermissionRule,
  parseRule,
  parseRules,
  pathPatternMatches,
  pathRulePattern,
  RuleSyntaxError,
  ruleAppliesTo,
  rulesForUnknownTools,
  TOOL_GROUPS,
} from "./rules.js";
export {
  createSensitiveFileMatcher,
  DEFAULT_SENSITIVE_PATTERNS,
  type SensitivePattern,
} from "./sensitive-files.js";
export { NON_PUBLIC_ADDRESS_ARGUMENT } from "./web-rules.js";
