import type { Turn } from "@attractor/agent";
import { describe, expect, it } from "vitest";
import { replayHistory } from "./replay.js";
import { SHELL_PREVIEW_LINES, summarizeToolCall } from "./tool-summary.js";

const at = "2026-01-01T00:00:00.000Z";
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const history: Turn[] = [
  { kind: "user", content: "fix it", timestamp: at },
  {
    kind: "assistant",
    content: "",
    reasoning: "The sum subtracts.",
    toolCalls: [
      {
        id: "c1",
        name: "edit_file",
        arguments: { file_path: "m.js", old_string: "a - b", new_string: "a + b" },
      },
      { id: "c2", name: "shell", arguments: { command: "seq 1 9" } },
      { id: "c3", name: "read_file", arguments: { file_path: "m.js" } },
    ],
    parts: [],
    usage,
    timestamp: at,
  },
  {
    kind: "tool_results",
    results: [
      { toolCallId: "c1", toolName: "edit_file", content: "Edited m.js", isError: false },
      {
        toolCallId: "c2",
        toolName: "shell",
        content: "1\n2\n3\n4\n5\n6\n7\n8\n9\nExit code: 0\nDuration: 12 ms",
        isError: false,
      },
      {
        toolCallId: "c3",
        toolName: "read_file",
        content: "1\tfunction add(a, b) {\n2\t  return a + b;\n3\t}",
        isError: false,
      },
    ],
    timestamp: at,
  },
] as Turn[];

describe("a restored conversation's transcript", () => {
  const items = replayHistory(history);
  const tools = items.flatMap((i) => (i.kind === "tool" ? [summarizeToolCall(i.call)] : []));

  it("shows the thinking and each call's block as the live call showed it", () => {
    expect(items.map((i) => i.kind)).toEqual(["user", "reasoning", "tool", "tool", "tool"]);
    const [edit, shell, read] = tools;
    expect(edit?.line).toBe("+1 −1");
    expect(edit?.diff).toMatch(/^-a - b$/m);
    expect(edit?.diff).toMatch(/^\+a \+ b$/m);
    expect(edit?.diff).not.toContain("No newline");
    expect(shell?.line).toBe("exit 0 · 12 ms");
    expect(shell?.body).toEqual(["1", "2", "3", "4", "5"]);
    // Nine lines of output, five shown: the footer is not counted as hidden.
    expect(shell?.hiddenLines).toBe(4);
    expect(read?.line).toBe("Read 3 lines");
  });
});

describe("a long restored conversation", () => {
  it("is shown whole, its first message included", () => {
    const turns = Array.from({ length: 150 }, (_, i) => [
      { kind: "user", content: `question ${i}`, timestamp: at },
      { kind: "assistant", content: `answer ${i}`, toolCalls: [], timestamp: at },
    ]).flat() as Turn[];
    const items = replayHistory(turns);
    expect(items).toHaveLength(300);
    expect(items[0]).toMatchObject({ kind: "user", text: "question 0" });
    expect(items.some((i) => i.kind === "notice")).toBe(false);
  });
});

describe("a tool's output preview", () => {
  const shell = (lines: number) =>
    summarizeToolCall({
      callId: "c",
      toolName: "shell",
      arguments: { command: "seq" },
      output: Array.from({ length: lines }, (_, i) => String(i + 1)).join("\n"),
      result: { isError: false, durationMs: 5, outputLines: lines },
    });

  it("shows one line more than the preview whole instead of a '+1 line' footer", () => {
    expect(shell(SHELL_PREVIEW_LINES + 1)).toMatchObject({ hiddenLines: 0 });
    expect(shell(SHELL_PREVIEW_LINES + 1).body).toHaveLength(SHELL_PREVIEW_LINES + 1);
    expect(shell(SHELL_PREVIEW_LINES + 2)).toMatchObject({ hiddenLines: 2 });
    expect(shell(SHELL_PREVIEW_LINES + 2).body).toHaveLength(SHELL_PREVIEW_LINES);
  });
});

describe("a command stopped with Esc", () => {
  it("says so in one line, without the notes written for the model", () => {
    const summary = summarizeToolCall({
      callId: "c",
      toolName: "shell",
      arguments: { command: "sleep 30" },
      output: "started\n[Command was aborted.]\nExit code: killed by SIGTERM\nDuration: 2300 ms",
      result: {
        isError: true,
        durationMs: 2400,
        outputLines: 4,
        details: { exitCode: null, durationMs: 2300 },
      },
    });
    expect(summary.line).toBe("stopped after 2.3 s");
    expect(summary.body).toEqual(["started"]);
    expect(JSON.stringify(summary)).not.toMatch(/aborted|SIGTERM|Duration/);
  });
});
