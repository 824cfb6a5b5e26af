/** Reads a whole stream as UTF-8 text (the task piped to a headless run). */
export async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The task from an argument and piped text together, as other agents merge them: the argument
 * first, then the piped text in a fenced block (a fence longer than any backtick run inside it).
 */
export function mergePromptAndPipe(prompt: string | undefined, piped: string): string | undefined {
  const text = piped.replace(/\s+$/, "");
  if (text.trim() === "") return prompt;
  if (prompt === undefined) return text.trim();
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${prompt}\n\n${fence}\n${text}\n${fence}`;
}
