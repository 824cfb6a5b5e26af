import { createSkillTool } from "../customization/skills.js";
import { codeIntelligenceDefinitions } from "../lsp/definitions.js";
import { createAnthropicProfile } from "../profiles/anthropic/index.js";
import { createGeminiProfile } from "../profiles/gemini/index.js";
import { createOpenAIProfile } from "../profiles/openai/index.js";
import { createOpenAICompatibleProfile } from "../profiles/openai-compatible/index.js";
import { subagentTools } from "../subagent/tools.js";
import { createAskUserTool } from "../tools/ask-user.js";
import { notebookEditTool } from "../tools/notebook/edit-tool.js";
import { createTodoTool } from "../tools/todo.js";
import { createWebFetchTool } from "../tools/web-fetch/tool.js";
import { createProviderWebSearchTool, createWebSearchTool } from "../tools/web-search/tool.js";
import type { ToolDefinition } from "../types/tool.js";

/**
 * Every tool definition this package ships, from every profile and optional tool, one per
 * distinct parameter schema: what the precompiled validators are generated from.
 */
export function builtinToolDefinitions(): ToolDefinition[] {
  const definitions = [
    ...[
      createAnthropicProfile("claude-sonnet-4-5"),
      createOpenAIProfile("gpt-5.2"),
      createGeminiProfile("gemini-2.5-pro"),
      createOpenAICompatibleProfile("llama3.2"),
    ].flatMap((p) => p.toolRegistry.definitions()),
    ...[
      ...subagentTools(),
      createTodoTool(),
      createAskUserTool({ ask: async () => "" }),
      createSkillTool(() => []),
      createWebFetchTool(),
      createWebSearchTool({ search: async () => ({ backend: "none", queries: [], results: [] }) }),
      createProviderWebSearchTool(),
      notebookEditTool(),
    ].map((t) => t.definition),
    ...Object.values(codeIntelligenceDefinitions()),
  ];
  const seen = new Set<string>();
  return definitions.filter((d) => {
    const key = JSON.stringify(d.parameters);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
