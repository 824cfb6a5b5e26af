import type { RegisteredTool } from "@attractor/agent";
import { callResultToOutput, mcpToolName } from "@attractor/agent/internals";
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ShapeOutput, ZodRawShapeCompat } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { QueryOptionError } from "./errors.js";

/** What a tool handler returns: an MCP tool result (`content` blocks, `isError`). */
export interface CallToolResult {
  readonly content: readonly (
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "image"; readonly data: string; readonly mimeType: string }
    | { readonly type: string; readonly [key: string]: unknown }
  )[];
  readonly isError?: boolean;
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/**
 * A tool's input schema: a JSON Schema object (`{ type: "object", properties… }`), or a zod raw
 * shape / zod object as the MCP SDK accepts (zod 3 or 4).
 */
export type ToolInputSchema = Readonly<Record<string, unknown>>;

/** One in-process tool, made by `tool()`. */
export interface SdkMcpToolDefinition<Args = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  readonly handler: (args: Args, extra: unknown) => Promise<CallToolResult>;
}

/**
 * An in-process MCP server config: a live server instance (the MCP SDK's McpServer or Server),
 * or the tools `createSdkMcpServer` was given (the server is made when a run connects to it).
 */
export type McpSdkServerConfig =
  | { readonly type: "sdk"; readonly name: string; readonly instance: McpServer | Server }
  | {
      readonly type: "sdk";
      readonly name: string;
      readonly version?: string;
      readonly tools: readonly SdkMcpToolDefinition<never>[];
    };

/** A tool for `createSdkMcpServer` with a zod shape: the handler's arguments are typed from it. */
export function tool<Shape extends ZodRawShapeCompat>(
  name: string,
  description: string,
  inputSchema: Shape,
  handler: (args: ShapeOutput<Shape>, extra: unknown) => Promise<CallToolResult>,
): SdkMcpToolDefinition<ShapeOutput<Shape>>;
/** A tool for `createSdkMcpServer` with a JSON Schema (or zod object): arguments validated against it. */
export function tool<Args = Record<string, unknown>>(
  name: string,
  description: string,
  inputSchema: ToolInputSchema,
  handler: (args: Args, extra: unknown) => Promise<CallToolResult>,
): SdkMcpToolDefinition<Args>;
export function tool(
  name: string,
  description: string,
  inputSchema: ToolInputSchema,
  handler: (args: never, extra: unknown) => Promise<CallToolResult>,
): SdkMcpToolDefinition<never> {
  return { name, description, inputSchema, handler };
}

const isZodSchema = (value: unknown): boolean =>
  typeof value === "object" && value !== null && ("_zod" in value || "_def" in value);

const isZodShape = (value: Readonly<Record<string, unknown>>): boolean => {
  const values = Object.values(value);
  return values.length > 0 && values.every(isZodSchema);
};

/**
 * An MCP server living in this process, with the given tools; a run makes it a real MCP SDK
 * server (tools/list, tools/call with the arguments validated) behind an in-memory transport.
 */
export function createSdkMcpServer(options: {
  readonly name: string;
  readonly version?: string;
  readonly tools?: readonly SdkMcpToolDefinition<never>[];
}): McpSdkServerConfig {
  return {
    type: "sdk",
    name: options.name,
    ...(options.version !== undefined && { version: options.version }),
    tools: options.tools ?? [],
  };
}

/** The MCP SDK server of `createSdkMcpServer`'s tools. */
async function buildServer(options: {
  readonly name: string;
  readonly version?: string;
  readonly tools: readonly SdkMcpToolDefinition<never>[];
}): Promise<Server> {
  const [{ Server: ServerClass }, types, zod, zodJson, { Ajv }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/server/zod-compat.js"),
    import("@modelcontextprotocol/sdk/server/zod-json-schema-compat.js"),
    import("ajv"),
  ]);
  const ajv = new Ajv({ strict: false, allErrors: true });
  const server = new ServerClass(
    { name: options.name, version: options.version ?? "1.0.0" },
    { capabilities: { tools: {} } },
  );
  const tools = options.tools.map((t) => {
    const schema = t.inputSchema;
    const zodObject = isZodSchema(schema)
      ? zod.normalizeObjectSchema(schema as never)
      : isZodShape(schema)
        ? zod.objectFromShape(schema as never)
        : undefined;
    if (zodObject !== undefined) {
      const json = zodJson.toJsonSchemaCompat(zodObject, { strictUnions: true, pipeStrategy: "input" });
      return {
        definition: t,
        jsonSchema: json as Record<string, unknown>,
        parse: async (args: unknown) => {
          const result = await zod.safeParseAsync(zodObject, args);
          return result.success
            ? { ok: true as const, value: result.data }
            : { ok: false as const, message: zod.getParseErrorMessage(result.error) };
        },
      };
    }
    if (schema.type !== "object")
      throw new QueryOptionError(
        "mcpServers",
        `the tool "${t.name}" of "${options.name}" has an input schema that is neither a zod schema nor a JSON Schema of type "object"`,
      );
    let validate: ReturnType<typeof ajv.compile>;
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new QueryOptionError(
        "mcpServers",
        `the tool "${t.name}" of "${options.name}" has an invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return {
      definition: t,
      jsonSchema: schema as Record<string, unknown>,
      parse: async (args: unknown) =>
        validate(args)
          ? { ok: true as const, value: args }
          : { ok: false as const, message: ajv.errorsText(validate.errors) },
    };
  });
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.definition.name,
      description: t.definition.description,
      inputSchema: t.jsonSchema as { type: "object" },
    })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const found = tools.find((t) => t.definition.name === request.params.name);
    if (!found)
      return { content: [{ type: "text", text: `Unknown tool ${request.params.name}` }], isError: true };
    const parsed = await found.parse(request.params.arguments ?? {});
    if (!parsed.ok)
      return {
        content: [
          { type: "text", text: `Invalid arguments for ${found.definition.name}: ${parsed.message}` },
        ],
        isError: true,
      };
    try {
      return (await found.definition.handler(parsed.value as never, extra)) as never;
    } catch (error) {
      return {
        content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
        isError: true,
      };
    }
  });
  return server;
}

/** A connected in-process server: its tools as the session's, and how to close it. */
export interface ConnectedSdkServer {
  readonly tools: readonly RegisteredTool[];
  close(): Promise<void>;
}

/**
 * Connects an in-process server (ours or any MCP SDK server) through the MCP SDK's in-memory
 * transport and offers its tools as `mcp__<name>__<tool>`; the permission policy judges them as
 * it judges any MCP server's tools.
 */
export async function connectSdkServer(
  name: string,
  config: McpSdkServerConfig,
): Promise<ConnectedSdkServer> {
  const [{ Client }, { InMemoryTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/inMemory.js"),
  ]);
  const instance = "instance" in config ? config.instance : await buildServer(config);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client: McpClient = new Client({ name: "attractor", version: "1.0.0" });
  try {
    await instance.connect(serverSide);
    await client.connect(clientSide);
  } catch (error) {
    throw new QueryOptionError(
      "mcpServers",
      `the in-process MCP server "${name}" could not be connected: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const listed = await client.listTools();
  const tools = listed.tools.map(
    (t): RegisteredTool => ({
      definition: {
        name: mcpToolName(name, t.name),
        description: t.description ?? `${t.name} (from MCP server ${name})`,
        parameters: {
          ...(t.inputSchema as Record<string, unknown>),
          type: "object",
          properties: t.inputSchema.properties ?? {},
        },
      },
      executor: async (args, _env, context) => {
        const result = await client.callTool(
          { name: t.name, arguments: args as Record<string, unknown> },
          undefined,
          context.signal !== undefined ? { signal: context.signal } : {},
        );
        return callResultToOutput(result as never);
      },
      // A server's own hints are not trusted: the permission policy decides, as for any MCP tool.
      readOnly: false,
    }),
  );
  return {
    tools,
    close: async () => {
      await client.close().catch(() => {});
      await instance.close().catch(() => {});
    },
  };
}
