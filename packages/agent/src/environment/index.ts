export * from "./env-policy.js";
export * from "./errors.js";
export { DEFAULT_GLOB_MAX_RESULTS } from "./glob.js";
export { DEFAULT_GREP_MAX_RESULTS, type GrepEngineChoice } from "./grep.js";
export { ripgrepAvailable } from "./grep-ripgrep.js";
export * from "./local.js";
export { DEFAULT_CAPTURE_LIMIT, KILL_GRACE_MS } from "./run-command.js";
