import type { ToolDefinition } from "@attractor/llm";
import { codeNavigationGuidance } from "./code-navigation.js";

/** The layers of a system prompt, in the order they are joined (later wins). */
export interface SystemPromptLayers {
  /** 1. The profile's base instructions. */
  readonly base: string;
  /** 2. The `<environment>` block. */
  readonly environment: string;
  /** 2b. The git snapshot taken at session start. */
  readonly git?: string;
  /** 3. The active tools. */
  readonly tools: readonly ToolDefinition[];
  /** 3'. Prompted tool calling: descriptions and call format, in place of the tool list. */
  readonly toolCallInstructions?: string;
  /** 4. Project instructions (AGENTS.md…), already within budget. */
  readonly projectDocs?: string;
  /** 4a. Skills: names and descriptions, loaded on demand through the skill tool. */
  readonly skills?: string;
  /** 4a'. Instructions that come with tools (MCP servers' own). */
  readonly toolInstructions?: string;
  /** 4b. A read-only mode's instructions (explore, plan, review). */
  readonly modeInstructions?: string;
  /** 5. The host's or user's own instructions: last, highest priority. */
  readonly userInstructions?: string;
}

/** A short list of the active tools: name and the first line of each description. */
export function formatToolSummary(tools: readonly ToolDefinition[]): string {
  if (tools.length === 0) return "";
  const lines = ["# Available tools"];
  for (const tool of tools) {
    const first = tool.description.split("\n")[0]?.trim() ?? "";
    lines.push(`- ${tool.name}: ${first}`);
  }
  return lines.join("\n");
}

/** Joins the layers in the spec's order: base, environment, tools, project docs, user instructions. */
export function assembleSystemPrompt(layers: SystemPromptLayers): string {
  const sections = [layers.base.trim(), layers.environment];
  if (layers.git) sections.push(layers.git);
  const tools = layers.toolCallInstructions?.trim() || formatToolSummary(layers.tools);
  if (tools) sections.push(tools);
  const navigation = codeNavigationGuidance(layers.tools);
  if (navigation) sections.push(navigation);
  if (layers.projectDocs) {
    sections.push(
      `# Project instructions\nThe files below come from the project. Instructions in deeper directories take precedence.\n\n${layers.projectDocs}`,
    );
  }
  if (layers.skills?.trim()) sections.push(layers.skills.trim());
  if (layers.toolInstructions?.trim()) sections.push(layers.toolInstructions.trim());
  if (layers.modeInstructions?.trim()) sections.push(layers.modeInstructions.trim());
  if (layers.userInstructions?.trim())
    sections.push(`# User instructions\n${layers.userInstructions.trim()}`);
  return sections.join("\n\n");
}
