import type { ToolCallData } from "@attractor/llm";
import type { SummaryTurn, Turn } from "../types/turn.js";

/** The system prompt of the summarising call. */
export const SUMMARIZER_PROMPT = `You compress the older part of a coding agent's conversation so the agent can continue the same work with a fresh context window. You receive a transcript of that part. Write a summary with exactly these sections, in this order:

## Decisions
Choices made and why (approaches taken or rejected, constraints agreed with the user).

## Discoveries
Facts learned about the code and the environment: file paths, function and type names, line numbers, commands that work, errors seen and their causes.

## Files touched
Every file read or changed, each with what was done to it.

## Work done
What is finished, including test and build results.

## Next steps
What remains, in order, starting with the step that was in progress.

The user's task and instructions are kept verbatim elsewhere: do not restate them. Be specific and complete but terse. No preamble, no closing remarks, no tool calls.`;

const TOOL_OUTPUT_HEAD = 1_000;
const TOOL_OUTPUT_TAIL = 500;
const ARGUMENTS_MAX = 400;

function clip(text: string, head: number, tail: number): string {
  if (text.length <= head + tail) return text;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters left out …]\n${text.slice(-tail)}`;
}

function callLine(call: ToolCallData): string {
  const args = call.rawArguments ?? JSON.stringify(call.arguments);
  return `ASSISTANT called ${call.name} ${clip(args, ARGUMENTS_MAX, 0)}`;
}

function turnText(turn: Turn): string {
  switch (turn.kind) {
    case "user":
      return `USER: ${turn.content}`;
    case "steering":
      return turn.source === "host"
        ? `USER (while the agent worked): ${turn.content}`
        : `NOTE: ${turn.content}`;
    case "system":
      return `SYSTEM: ${turn.content}`;
    case "summary":
      return `SUMMARY OF EARLIER WORK:\n${turn.summary}`;
    case "assistant": {
      const lines: string[] = [];
      if (turn.content.trim() !== "") lines.push(`ASSISTANT: ${turn.content}`);
      for (const call of turn.toolCalls) lines.push(callLine(call));
      return lines.join("\n");
    }
    case "tool_results":
      return turn.results
        .map(
          (r) =>
            `RESULT of ${r.toolName}${r.isError ? " (error)" : ""}:\n${clip(r.content, TOOL_OUTPUT_HEAD, TOOL_OUTPUT_TAIL)}`,
        )
        .join("\n");
  }
}

/**
 * The older turns as a plain transcript for the summarising call, within `maxChars`: tool
 * outputs and arguments are clipped, and when it is still too long the middle is left out (the
 * start holds the task, the end the latest state).
 */
export function renderTranscript(turns: readonly Turn[], maxChars: number): string {
  const text = turns
    .map(turnText)
    .filter((t) => t !== "")
    .join("\n\n");
  const head = Math.floor(maxChars * 0.25);
  return clip(text, head, Math.max(0, maxChars - head));
}

/** The task and user instructions of a stretch of history, verbatim, earlier summaries included. */
export function collectInstructions(turns: readonly Turn[]): { task?: string; instructions: string[] } {
  let task: string | undefined;
  const instructions: string[] = [];
  for (const turn of turns) {
    if (turn.kind === "summary") {
      if (turn.task !== "") {
        if (task === undefined) task = turn.task;
        else instructions.push(turn.task);
      }
      instructions.push(...turn.instructions);
    } else if (turn.kind === "user") {
      if (task === undefined) task = turn.content;
      else instructions.push(turn.content);
    } else if (turn.kind === "steering" && turn.source === "host") {
      instructions.push(turn.content);
    }
  }
  return { ...(task !== undefined && { task }), instructions };
}

const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;

/** Paths a call names as the files it changes. */
function pathsOf(call: ToolCallData): string[] {
  const args = call.arguments;
  const paths: string[] = [];
  for (const key of ["file_path", "path", "filePath", "file"]) {
    const v = args[key];
    if (typeof v === "string" && v !== "") paths.push(v);
  }
  for (const v of Object.values(args)) {
    if (typeof v === "string") for (const m of v.matchAll(PATCH_FILE)) paths.push(m[1]!.trim());
  }
  return paths;
}

/** Files that calls of changing tools (per `modifies`) named, earlier summaries' included, in first-seen order. */
export function collectFilesTouched(
  turns: readonly Turn[],
  modifies: (toolName: string) => boolean,
): string[] {
  const files = new Set<string>();
  for (const turn of turns) {
    if (turn.kind === "summary") for (const f of turn.filesTouched) files.add(f);
    if (turn.kind !== "assistant") continue;
    for (const call of turn.toolCalls) if (modifies(call.name)) for (const p of pathsOf(call)) files.add(p);
  }
  return [...files];
}

/** The text the model receives for a summary turn. */
export function formatSummary(parts: {
  readonly task?: string;
  readonly instructions: readonly string[];
  readonly filesTouched: readonly string[];
  readonly summary: string;
}): string {
  const sections = [
    "<conversation_summary>",
    "Earlier turns of this conversation were compacted to fit the context window. This summary replaces them; the turns after it are verbatim.",
  ];
  if (parts.task !== undefined) sections.push(`## Original task (verbatim)\n${parts.task}`);
  if (parts.instructions.length > 0) {
    sections.push(
      `## User instructions since then (verbatim, in order)\n${parts.instructions.map((t, i) => `${i + 1}. ${t}`).join("\n")}`,
    );
  }
  if (parts.filesTouched.length > 0)
    sections.push(`## Files changed by tools\n${parts.filesTouched.map((f) => `- ${f}`).join("\n")}`);
  sections.push(parts.summary.trim(), "</conversation_summary>");
  return sections.join("\n\n");
}

/** The turn that replaces `older`: instructions and files gathered from it, the model's summary beside them. */
export function buildSummaryTurn(
  older: readonly Turn[],
  summary: string,
  modifies: (toolName: string) => boolean,
  timestamp: string,
): SummaryTurn {
  const { task, instructions } = collectInstructions(older);
  const filesTouched = collectFilesTouched(older, modifies);
  const replacedTurns = older.reduce((n, t) => n + (t.kind === "summary" ? t.replacedTurns : 1), 0);
  const replacedResponses = older.reduce(
    (n, t) => n + (t.kind === "summary" ? t.replacedResponses : t.kind === "assistant" ? 1 : 0),
    0,
  );
  return {
    kind: "summary",
    content: formatSummary({ ...(task !== undefined && { task }), instructions, filesTouched, summary }),
    task: task ?? "",
    instructions,
    filesTouched,
    summary: summary.trim(),
    replacedTurns,
    replacedResponses,
    timestamp,
  };
}
