export * from "./command-hooks.js";
export * from "./confined-hook.js";
export * from "./hook-output.js";
export * from "./prompt-hook.js";
export * from "./run-command.js";
export * from "./trust-gate.js";
