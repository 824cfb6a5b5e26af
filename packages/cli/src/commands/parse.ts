/** A typed line: a slash command with its argument text, or a message for the model. */
export type ParsedInput =
  | { readonly kind: "command"; readonly name: string; readonly args: string }
  | { readonly kind: "message"; readonly text: string };

/**
 * Splits a typed line. `/name args…` is a command (name lower-cased, args trimmed); a line that
 * merely starts with a path (`/usr/bin/env is missing`) is a message, and `//text` sends `/text`.
 */
export function parseInput(line: string): ParsedInput {
  const text = line.trim();
  if (text.startsWith("//")) return { kind: "message", text: text.slice(1) };
  const match = /^\/([A-Za-z][\w-]*(?::[\w-]+)*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return { kind: "message", text: line };
  return { kind: "command", name: (match[1] as string).toLowerCase(), args: (match[2] ?? "").trim() };
}
