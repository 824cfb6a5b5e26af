import { CodeIntelligence, type ExecutionEnvironment, type LanguageServerConfig } from "@attractor/agent";
import type { LspSettings } from "../config/settings-schema.js";

/**
 * Language servers as the `lsp` settings describe them; undefined when settings turn them off.
 * Until the project is trusted, no program inside it (node_modules/.bin, its TypeScript) is run.
 */
export function codeIntelligenceFromSettings(
  environment: ExecutionEnvironment,
  settings: LspSettings | undefined,
  projectTrusted = false,
): CodeIntelligence | undefined {
  if (settings?.enabled === false) return undefined;
  const servers: LanguageServerConfig[] = Object.entries(settings?.servers ?? {}).map(([id, s]) => ({
    id,
    command: s.command,
    extensions: s.extensions,
    ...(s.args !== undefined && { args: s.args }),
    ...(s.rootMarkers !== undefined && { rootMarkers: s.rootMarkers }),
    ...(s.initializationOptions !== undefined && { initializationOptions: s.initializationOptions }),
  }));
  return new CodeIntelligence({
    environment,
    servers,
    projectTrusted,
    ...(settings?.diagnosticsWaitMs !== undefined && { diagnosticsWaitMs: settings.diagnosticsWaitMs }),
  });
}
