import type { RegisteredTool } from "../types/tool.js";
import type { ListedTool, McpServerConnection } from "./connection.js";

/** Names of the resource tools, offered while some server has resources. */
export const LIST_MCP_RESOURCES = "list_mcp_resources";
export const READ_MCP_RESOURCE = "read_mcp_resource";

/**
 * A server's input schema as a parameter schema: `$schema` goes (providers reject it, and a
 * draft ajv does not know must not stop validation), and a schema without a type becomes an object.
 */
export function parameterSchema(
  input: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const { $schema: _drop, ...rest } = (input ?? {}) as Record<string, unknown>;
  return { ...rest, type: "object", properties: (rest.properties as object | undefined) ?? {} };
}

/** A server's tool as a tool the session can offer, under its `mcp__…` name. */
export function mcpTool(name: string, connection: McpServerConnection, tool: ListedTool): RegisteredTool {
  const title = tool.title ?? tool.annotations?.title;
  const description = tool.description ?? title ?? `${tool.name} (from MCP server ${connection.name})`;
  return {
    definition: { name, description, parameters: parameterSchema(tool.inputSchema) },
    executor: (args, _env, context) =>
      connection.callTool(tool.name, args, { signal: context.signal, onProgress: context.onOutput }),
    // Servers' read-only hints are not trusted: the host's permission policy decides.
    readOnly: false,
  };
}

/** `list_mcp_resources`: what the servers with resources offer. */
export function listResourcesTool(servers: () => readonly McpServerConnection[]): RegisteredTool {
  return {
    definition: {
      name: LIST_MCP_RESOURCES,
      description:
        "List the resources (files, documents, data) that connected MCP servers offer. Read one with read_mcp_resource.",
      parameters: {
        type: "object",
        properties: { server: { type: "string", description: "Only this server's resources." } },
        additionalProperties: false,
      },
    },
    readOnly: true,
    executor: async (args, _env, context) => {
      const wanted = typeof args.server === "string" ? args.server : undefined;
      const candidates = servers().filter(
        (s) => s.hasResources && (wanted === undefined || s.name === wanted),
      );
      if (wanted !== undefined && candidates.length === 0)
        return { output: `No connected MCP server named "${wanted}" offers resources.`, isError: true };
      const lines: string[] = [];
      let failed = false;
      for (const server of candidates) {
        try {
          const resources = await server.listResources(context.signal);
          lines.push(`${server.name}: ${resources.length} resource${resources.length === 1 ? "" : "s"}`);
          for (const r of resources) {
            const about = [r.mimeType, r.description].filter(Boolean).join(", ");
            lines.push(`  ${r.uri}  ${r.name}${about ? ` (${about})` : ""}`);
          }
        } catch (error) {
          failed = true;
          lines.push(
            `${server.name}: could not list resources: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      if (lines.length === 0) return "No connected MCP server offers resources.";
      return { output: lines.join("\n"), isError: failed && lines.every((l) => !l.startsWith("  ")) };
    },
  };
}

/** `read_mcp_resource`: one resource's contents by server and URI. */
export function readResourceTool(server: (name: string) => McpServerConnection | undefined): RegisteredTool {
  return {
    definition: {
      name: READ_MCP_RESOURCE,
      description: "Read a resource from an MCP server by its URI (see list_mcp_resources).",
      parameters: {
        type: "object",
        properties: {
          server: { type: "string", description: "The MCP server's name." },
          uri: { type: "string", description: "The resource URI." },
        },
        required: ["server", "uri"],
        additionalProperties: false,
      },
    },
    readOnly: true,
    executor: async (args, _env, context) => {
      const connection = server(String(args.server));
      if (!connection?.hasResources)
        return {
          output: `No connected MCP server named "${String(args.server)}" offers resources.`,
          isError: true,
        };
      return connection.readResource(String(args.uri), context.signal);
    },
  };
}
