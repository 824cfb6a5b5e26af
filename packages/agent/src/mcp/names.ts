import { createHash } from "node:crypto";

/** The longest tool name every provider accepts (OpenAI and Anthropic allow 64 characters). */
export const MAX_TOOL_NAME_LENGTH = 64;

/** The prefix of every MCP tool and prompt name. */
export const MCP_PREFIX = "mcp__";

/** A name part with every character outside `[A-Za-z0-9_-]` replaced by `_`. */
export function sanitizeNamePart(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return clean === "" ? "_" : clean;
}

/**
 * The name the model sees for a server's tool or prompt: `mcp__<server>__<tool>`, sanitised, and
 * when longer than the providers allow, cut and ended with a hash of the full name so that two long
 * names stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - hash.length - 1)}_${hash}`;
}

/** The server part of an `mcp__<server>__…` name, sanitised as mcpToolName does; undefined otherwise. */
export function mcpServerOfName(name: string): string | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const end = rest.indexOf("__");
  return end <= 0 ? undefined : rest.slice(0, end);
}
