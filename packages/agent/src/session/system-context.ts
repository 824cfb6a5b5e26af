import { formatEnvironmentBlock, localDate } from "../prompts/environment-block.js";
import { captureGitSnapshot, formatGitSnapshot } from "../prompts/git-snapshot.js";
import { discoverProjectDocs } from "../prompts/project-docs.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { ProviderProfile } from "../types/profile.js";

/** What a session learns about its surroundings once, at the start, for its system prompts. */
export interface PromptContext {
  /** The `<environment>` block for the profile's current model. */
  environmentBlock(profile: ProviderProfile): string;
  readonly gitSnapshot?: string;
  readonly projectDocs: string;
}

/** Takes the git snapshot and discovers project docs; failures leave the layer empty. */
export async function preparePromptContext(
  env: ExecutionEnvironment,
  profile: ProviderProfile,
  userFiles: readonly string[] = [],
): Promise<PromptContext> {
  const git = await captureGitSnapshot(env).catch(() => undefined);
  const docs = await discoverProjectDocs(env, {
    providerFiles: profile.projectDocFiles,
    userFiles,
    ...(git !== undefined && { gitRoot: git.root }),
  }).catch(() => ({ text: "" }));
  const date = localDate();
  return {
    environmentBlock: (p) =>
      formatEnvironmentBlock({
        workingDirectory: env.workingDirectory(),
        isGitRepository: git !== undefined,
        ...(git?.branch !== undefined && { gitBranch: git.branch }),
        platform: env.platform(),
        osVersion: env.osVersion(),
        date,
        model: p.displayName ?? p.model,
        ...(p.knowledgeCutoff !== undefined && { knowledgeCutoff: p.knowledgeCutoff }),
      }),
    ...(git !== undefined && { gitSnapshot: formatGitSnapshot(git) }),
    projectDocs: docs.text,
  };
}
