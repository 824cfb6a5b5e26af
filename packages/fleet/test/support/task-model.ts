// A scripted Anthropic model that serves many tasks at once: each request is answered from the
// task named in its first user message ("task:<id>"), so concurrent sessions do not interleave
// scripts. First request: write out/<id>.txt (or run a shell command); after the tool result: a final answer.

import { replyFor } from "@attractor/cli/testing";
import { startWireServer, type WireServer } from "@attractor/llm/testing";

export interface TaskModel {
  readonly server: WireServer;
  /** Environment pointing attractor at this model. */
  env(): Record<string, string>;
  /** Requests seen per task id. */
  requestsFor(id: string): number;
  /** The next `count` first requests of tasks whose prompt contains `marker` get a 429. */
  rejectWith429(marker: string, count: number): void;
  close(): Promise<void>;
}

type Body = { messages?: { role: string; content: string | { type: string; text?: string }[] }[] };

function firstUserText(body: Body): string {
  const first = body.messages?.find((m) => m.role === "user");
  if (!first) return "";
  return typeof first.content === "string"
    ? first.content
    : first.content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("\n");
}

const hasToolResult = (body: Body) =>
  (body.messages ?? []).some(
    (m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
  );

/**
 * Starts the model; `delayMs` holds every first answer that long (to catch a task mid-run);
 * `shell` makes the first answer run that shell command instead of writing the file.
 */
export async function startTaskModel(
  options: { delayMs?: number; shell?: (id: string) => string } = {},
): Promise<TaskModel> {
  const counts = new Map<string, number>();
  const rejections: { marker: string; left: number }[] = [];
  const server = await startWireServer(async (request) => {
    const body = request.body as Body;
    const text = firstUserText(body);
    const id = /task:(\S+)/.exec(text)?.[1] ?? "unknown";
    counts.set(id, (counts.get(id) ?? 0) + 1);
    const toolDone = hasToolResult(body);
    if (!toolDone) {
      const rejection = rejections.find((r) => r.left > 0 && text.includes(r.marker));
      if (rejection) {
        rejection.left--;
        return {
          kind: "json",
          status: 429,
          headers: { "retry-after": "0" },
          body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
        };
      }
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      return replyFor("anthropic", undefined, [
        options.shell
          ? { name: "shell", args: { command: options.shell(id) } }
          : { name: "write_file", args: { file_path: `out/${id}.txt`, content: `${id}\n` } },
      ]);
    }
    return replyFor("anthropic", `done ${id}`, []);
  });
  return {
    server,
    env: () => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }),
    requestsFor: (id) => counts.get(id) ?? 0,
    rejectWith429: (marker, count) => void rejections.push({ marker, left: count }),
    close: () => server.close(),
  };
}
