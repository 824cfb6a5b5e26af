import { resolve } from "node:path";
import type { RuntimeOptions } from "@attractor/runtime";
import type { CliArgs } from "./args.js";

/** The runtime options a command line sets, the same for every front end that takes run flags. */
export type RuntimeFlags = Pick<
  RuntimeOptions,
  | "provider"
  | "model"
  | "baseUrl"
  | "mode"
  | "sandbox"
  | "allowedTools"
  | "disallowedTools"
  | "systemPrompt"
  | "appendSystemPrompt"
  | "additionalDirectories"
  | "remote"
  | "container"
  | "maxTurns"
  | "reasoningEffort"
  | "toolMode"
  | "trustProject"
  | "claudeSettingSources"
>;

/** Turns parsed run flags into runtime options; `--add-dir` folders resolve against `baseDir`. */
export function runtimeFlags(args: CliArgs, baseDir: string): RuntimeFlags {
  return {
    ...(args.provider !== undefined && { provider: args.provider }),
    ...(args.model !== undefined && { model: args.model }),
    ...(args.baseUrl !== undefined && { baseUrl: args.baseUrl }),
    ...(args.mode !== undefined && { mode: args.mode }),
    ...(args.sandbox !== undefined && { sandbox: args.sandbox }),
    ...(args.allowedTools.length > 0 && { allowedTools: args.allowedTools }),
    ...(args.disallowedTools.length > 0 && { disallowedTools: args.disallowedTools }),
    ...(args.systemPrompt !== undefined && { systemPrompt: args.systemPrompt }),
    ...(args.appendSystemPrompt !== undefined && { appendSystemPrompt: args.appendSystemPrompt }),
    ...(args.addDirs.length > 0 && { additionalDirectories: args.addDirs.map((d) => resolve(baseDir, d)) }),
    ...(args.remote !== undefined && { remote: args.remote }),
    ...(args.container !== undefined && { container: args.container }),
    ...(args.maxTurns !== undefined && { maxTurns: args.maxTurns }),
    ...(args.reasoningEffort !== undefined && { reasoningEffort: args.reasoningEffort }),
    ...(args.toolMode !== undefined && { toolMode: args.toolMode }),
    trustProject: args.trustProject,
    ...(args.settingSources !== undefined && { claudeSettingSources: args.settingSources }),
  };
}
