import { createInterface } from "node:readline";
import type { ApprovalDecision } from "@attractor/runtime/mcp";
import { describeServer, type PendingMcpServer } from "@attractor/runtime/mcp";

/**
 * Asks on the terminal, before the interactive UI starts, whether to use each project server
 * not answered for yet. Anything but yes declines (fail closed).
 */
export async function askProjectServers(
  pending: readonly PendingMcpServer[],
  io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream },
): Promise<Map<string, ApprovalDecision>> {
  const answers = new Map<string, ApprovalDecision>();
  if (pending.length === 0) return answers;
  io.output.write(
    `This project's .mcp.json names ${pending.length} MCP server${pending.length === 1 ? "" : "s"} you have not approved. ` +
      "A server runs with your rights; use only those you trust.\n",
  );
  // Lines are read as they come rather than through question(): answers typed ahead (or piped)
  // must not be lost when the input ends before the last question.
  const rl = createInterface({ input: io.input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  try {
    let all = false;
    for (const server of pending) {
      if (all) {
        answers.set(server.name, "approved");
        continue;
      }
      io.output.write(
        `Use MCP server "${server.name}" (${describeServer(server.config)})? [y]es, [n]o, [a]ll: `,
      );
      const next = await lines.next();
      const answer = next.done ? "" : String(next.value).trim().toLowerCase();
      all = answer === "a" || answer === "all";
      answers.set(server.name, all || answer === "y" || answer === "yes" ? "approved" : "denied");
    }
  } finally {
    rl.close();
  }
  return answers;
}
