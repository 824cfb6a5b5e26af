// A small MCP server over stdio for the cases published servers do not cover: `silent` never
// answers initialize; `normal` pages its tool list, crashes on request, answers with its pid
// (to see a restart), runs a tool until cancelled (writing its start and its cancellation to MARKER_FILE) and
// adds a tool at run time (tools/list_changed).
import { writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const mode = process.argv[2] ?? "normal";
const transport = new StdioServerTransport();

if (mode === "silent") {
  await transport.start();
  // Reads every message and answers none.
  transport.onmessage = () => {};
} else {
  const tool = (name, description, properties = {}) => ({
    name,
    description,
    inputSchema: { type: "object", properties },
  });
  const tools = [
    tool("pid", "Answers with the server's process id."),
    tool("crash", "Exits the server while the call runs."),
    tool("wait-for-cancel", "Runs until cancelled."),
    tool("add-tool", "Adds the tool named in `name`.", { name: { type: "string" } }),
    tool("a tool/with odd:chars", "A name that needs sanitising."),
  ];
  const server = new Server(
    { name: "scripted", version: "1.0.0" },
    {
      capabilities: { tools: { listChanged: true } },
      // INSTRUCTIONS_CHARS: instructions of that length (to see them bounded in a system prompt).
      ...(process.env.INSTRUCTIONS_CHARS && {
        instructions: `Use pid to learn the process id. ${"x".repeat(Number(process.env.INSTRUCTIONS_CHARS))}`,
      }),
    },
  );
  // Two tools a page, to exercise pagination.
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + 2;
    return { tools: tools.slice(start, next), ...(next < tools.length && { nextCursor: String(next) }) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    switch (name) {
      case "pid":
        return { content: [{ type: "text", text: String(process.pid) }] };
      case "crash":
        process.stderr.write("crashing on purpose\n");
        setTimeout(() => process.exit(3), 20);
        return new Promise(() => {});
      case "wait-for-cancel":
        if (process.env.MARKER_FILE) writeFileSync(`${process.env.MARKER_FILE}.started`, "started");
        return new Promise((resolve) => {
          extra.signal.addEventListener("abort", () => {
            if (process.env.MARKER_FILE)
              writeFileSync(process.env.MARKER_FILE, `cancelled ${String(extra.signal.reason)}`);
            resolve({ content: [{ type: "text", text: "cancelled" }] });
          });
        });
      case "add-tool":
        tools.push(tool(String(args?.name), "Added at run time."));
        await server.sendToolListChanged();
        return { content: [{ type: "text", text: "added" }] };
      default:
        return { content: [{ type: "text", text: `ran ${name}` }] };
    }
  });
  await server.connect(transport);
}
