export * from "./code-running-files.js";
export * from "./confined.js";
export * from "./env-policy.js";
export * from "./errors.js";
export * from "./from-primitives.js";
export { DEFAULT_GLOB_MAX_RESULTS } from "./glob.js";
export { DEFAULT_GREP_MAX_RESULTS, type GrepEngineChoice } from "./grep.js";
export { ripgrepAvailable } from "./grep-ripgrep.js";
export { cutLongLine, lineCutMarker } from "./line-cut.js";
export * from "./local.js";
export * from "./logging.js";
export { absolutePath, programOnPath } from "./program-on-path.js";
export * from "./read-only.js";
export { ripgrepCommand } from "./ripgrep-binary.js";
export { DEFAULT_CAPTURE_LIMIT, KILL_GRACE_MS } from "./run-command.js";
export { describeSandbox, detectSandboxBlock } from "./sandbox/blocked.js";
export { type BwrapLayout, bwrapArguments } from "./sandbox/bwrap-args.js";
export { type BubblewrapStatus, findBubblewrap, probeBubblewrap } from "./sandbox/bwrap-probe.js";
export {
  createSandboxPolicy,
  gitDirectories,
  HIDDEN_HOME_PATHS,
  SANDBOX_MODES,
  type SandboxMode,
  type SandboxPolicy,
  type SandboxPolicyOptions,
} from "./sandbox/policy.js";
export { seatbeltProfile } from "./sandbox/seatbelt.js";
export * from "./sandboxed.js";
export * from "./secrets.js";
export * from "./ssh/index.js";
