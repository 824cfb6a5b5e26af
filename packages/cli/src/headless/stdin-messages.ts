import { createInterface } from "node:readline";
import type { TextSink } from "./printers.js";

/** Why a line of `--input-format stream-json` input was not a user message. */
function problemOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "not a JSON object";
  const line = value as { type?: unknown; message?: { role?: unknown; content?: unknown } };
  if (line.type !== "user") return `type ${JSON.stringify(line.type)} is not "user"`;
  if (typeof line.message !== "object" || line.message === null) return "no message object";
  if (line.message.role !== undefined && line.message.role !== "user") return "message.role is not user";
  return undefined;
}

/** The text of a user message's content: a string, or the text blocks of a list joined. */
function textOf(content: unknown, warn: (message: string) => void): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const block of content as { type?: unknown; text?: unknown }[]) {
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
    else warn(`a ${JSON.stringify(block?.type)} content block was left out: only text blocks are read`);
  }
  return texts.join("\n\n");
}

/**
 * Reads Claude Code's stream-json input: one JSON object a line,
 * `{"type":"user","message":{"role":"user","content":"…" | [{"type":"text","text":"…"}]}}`,
 * and yields each message's text. A line that is not such a message is reported on `stderr`
 * with its line number and skipped; blank lines are ignored.
 */
export async function* readStreamJsonMessages(
  input: NodeJS.ReadableStream,
  stderr: TextSink,
): AsyncGenerator<string> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const raw of lines) {
    number++;
    if (raw.trim() === "") continue;
    const warn = (message: string) => stderr.write(`warning: stdin line ${number}: ${message}\n`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      warn(`not JSON (${error instanceof Error ? error.message : String(error)}); skipped`);
      continue;
    }
    const text = userMessageText(value, warn);
    if (text !== undefined) yield text;
  }
}

/** The text of one stream-json user message; undefined (with a warning) when it is not one. */
export function userMessageText(value: unknown, warn: (message: string) => void): string | undefined {
  const problem = problemOf(value);
  if (problem !== undefined) {
    warn(`${problem}; skipped`);
    return undefined;
  }
  const text = textOf((value as { message: { content?: unknown } }).message.content, warn);
  if (text === undefined || text.trim() === "") {
    warn("the message has no text; skipped");
    return undefined;
  }
  return text;
}
