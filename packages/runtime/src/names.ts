// `@attractor/runtime/names`: the names a front end parses before it runs anything (providers,
// permission modes, sandbox and tool modes, reasoning efforts). Its modules import nothing at run
// time, so a command's `--help` or argument check loads neither the agent nor the model client.
export {
  REASONING_EFFORTS,
  SANDBOX_MODES,
  type SandboxModeSetting,
  TOOL_MODES,
} from "./config/settings-schema.js";
export {
  isPermissionMode,
  PERMISSION_MODE_ALIASES,
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionModeName,
  toPermissionMode,
} from "./permissions/modes.js";
export { isProviderName, PROVIDERS, type ProviderName } from "./runtime/provider-names.js";
