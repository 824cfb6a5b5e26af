// A program written for the Claude Agent SDK (@anthropic-ai/claude-agent-sdk), using nothing but
// its API: it asks the agent to find the TODO comments of a project and report them through a
// tool the program serves in-process, lets the agent read but never run commands or edit, and
// prints the report. Pointed at attractor, it runs unchanged on any model attractor speaks:
//   npm run build
//   CLAUDE_CODE_EXECUTABLE=packages/cli/dist/bundle/attractor.js \
//     node examples/claude-agent-sdk-todo-report.mjs path/to/project
// (without CLAUDE_CODE_EXECUTABLE the SDK starts its own Claude Code).
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const project = process.argv[2] ?? process.cwd();
const reports = [];
const reporter = createSdkMcpServer({
  name: "todo",
  version: "1.0.0",
  tools: [
    tool(
      "report",
      "Report the TODO comments found: one entry per comment, with its file and text.",
      { items: z.array(z.object({ file: z.string(), text: z.string() })) },
      async ({ items }) => {
        reports.push(...items);
        return { content: [{ type: "text", text: `recorded ${items.length} item(s)` }] };
      },
    ),
  ],
});

const run = query({
  prompt: "Find every TODO comment in this project and report them all with the todo report tool.",
  options: {
    cwd: project,
    ...(process.env.CLAUDE_CODE_EXECUTABLE && {
      pathToClaudeCodeExecutable: process.env.CLAUDE_CODE_EXECUTABLE,
    }),
    mcpServers: { todo: reporter },
    allowedTools: ["mcp__todo__report"],
    // Reading is fine; anything else the agent wants is refused with a reason it can act on.
    canUseTool: async (toolName, input) =>
      ["Read", "Grep", "Glob", "LS"].includes(toolName)
        ? { behavior: "allow", updatedInput: input }
        : { behavior: "deny", message: `this report only reads files (${toolName} refused)` },
  },
});

let outcome;
for await (const message of run) {
  if (message.type === "result") outcome = message;
}
for (const item of reports) console.log(`${item.file}: ${item.text}`);
console.log(outcome?.subtype === "success" ? `summary: ${outcome.result}` : `failed: ${outcome?.subtype}`);
process.exitCode = outcome?.subtype === "success" ? 0 : 1;
