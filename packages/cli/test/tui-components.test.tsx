import { vi } from "vitest";

// Colours are part of what is asserted: force them before Ink's colour library loads.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "1";
});

import { Box } from "ink";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { DiffView } from "../src/tui/components/diff-view.js";
import { StatusLine } from "../src/tui/components/status-line.js";
import { ToolCallBlock } from "../src/tui/components/tool-call-block.js";
import { Markdown } from "../src/tui/markdown/markdown.js";
import type { ToolCallView } from "../src/tui/transcript/items.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped
const plain = (frame: string | undefined) => (frame ?? "").replace(/\x1b\[[0-9;]*m/g, "");
const RED = "\x1b[31m";
const GREEN = "\x1b[32m";
const CYAN = "\x1b[36m";

describe("ToolCallBlock", () => {
  it("shows a spinner and live output while running, then the summary and first lines", () => {
    const running: ToolCallView = {
      callId: "c1",
      toolName: "shell",
      arguments: { command: "npm test" },
      output: "> vitest run\n✓ a.test.ts\n",
    };
    const { lastFrame, rerender, unmount } = render(<ToolCallBlock call={running} />);
    const live = plain(lastFrame());
    expect(live).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Shell npm test/);
    expect(live).toContain("✓ a.test.ts");
    expect(live).not.toContain("exit");

    const lines = Array.from({ length: 9 }, (_, i) => `out ${i + 1}`).join("\n");
    rerender(
      <ToolCallBlock
        call={{
          ...running,
          output: `${lines}\nExit code: 1\nDuration: 2300 ms`,
          result: { isError: true, details: { exitCode: 1 }, durationMs: 2300, outputLines: 11 },
        }}
      />,
    );
    const done = lastFrame() ?? "";
    expect(plain(done)).toContain("● Shell npm test");
    expect(plain(done)).toMatch(/⎿ +exit 1 · 2.3 s/);
    expect(plain(done)).toContain("out 5");
    expect(plain(done)).not.toContain("out 6");
    expect(plain(done)).toContain("… +4 lines");
    expect(done).toContain(`${RED}●`);
    unmount();
  });

  it("summarises a read by its line count without repeating the file", () => {
    const { lastFrame, unmount } = render(
      <ToolCallBlock
        call={{
          callId: "c2",
          toolName: "read_file",
          arguments: { file_path: "src/app.ts" },
          output: "1\tconst secretSauce = 1;",
          result: { isError: false, details: { linesRead: 158 }, durationMs: 3, outputLines: 158 },
        }}
      />,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain("● Read src/app.ts");
    expect(frame).toContain("Read 158 lines");
    expect(frame).not.toContain("secretSauce");
    unmount();
  });
});

describe("DiffView", () => {
  it("colours removals red, additions green, hunks cyan, with line numbers", () => {
    const diff =
      "--- a/src/x.ts\n+++ b/src/x.ts\n@@ -4,3 +4,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n const c = 4;\n";
    const { lastFrame, unmount } = render(<DiffView diff={diff} />);
    const frame = lastFrame() ?? "";
    const lines = frame.split("\n");
    const removed = lines.find((l) => plain(l).includes("- const b = 2;"));
    const added = lines.find((l) => plain(l).includes("+ const b = 3;"));
    expect(removed?.startsWith(RED)).toBe(true);
    expect(added?.startsWith(GREEN)).toBe(true);
    expect(lines.find((l) => plain(l).startsWith("@@"))?.startsWith(CYAN)).toBe(true);
    expect(plain(removed)).toMatch(/^5 - const b = 2;/);
    expect(plain(added)).toMatch(/^5 \+ const b = 3;/);
    expect(plain(frame)).toContain("src/x.ts");
    const context = lines.find((l) => plain(l).includes("const a = 1;"));
    expect(context).not.toContain(RED);
    expect(context).not.toContain(GREEN);
    unmount();
  });

  it("keeps the gutter clear on wrapped lines at a narrow width", () => {
    const long = "word ".repeat(20).trim();
    const { lastFrame, unmount } = render(
      <Box width={40}>
        <DiffView diff={`@@ -1,1 +1,1 @@\n-${long}\n+${long}\n`} />
      </Box>,
    );
    const lines = plain(lastFrame()).split("\n");
    const added = lines.findIndex((l) => l.startsWith("1 + word"));
    expect(added).toBeGreaterThan(0);
    // Continuation rows start under the text, not in the number column.
    const next = lines[added + 1] ?? "";
    expect(next).toMatch(/^ {4}word/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    unmount();
  });

  it("collapses a long diff", () => {
    const body = Array.from({ length: 50 }, (_, i) => `+line ${i}`).join("\n");
    const { lastFrame, unmount } = render(<DiffView diff={`@@ -0,0 +1,50 @@\n${body}\n`} maxLines={10} />);
    const frame = plain(lastFrame());
    expect(frame).toContain("line 8");
    expect(frame).not.toContain("line 9\n");
    expect(frame).toContain("… 41 more diff lines");
    unmount();
  });
});

describe("Markdown", () => {
  it("renders headings, emphasis, inline code, lists and fenced code compactly", () => {
    const text = [
      "# Plan",
      "",
      "Use **bold** and `code` here.",
      "",
      "- first",
      "- second",
      "  - nested",
      "",
      "3. three",
      "4. four",
      "",
      "```ts",
      "const x = 1;",
      "```",
    ].join("\n");
    const { lastFrame, unmount } = render(<Markdown text={text} />);
    const raw = lastFrame() ?? "";
    const frame = plain(raw);
    expect(frame).toContain("Plan");
    expect(frame).not.toContain("#");
    expect(frame).toContain("Use bold and code here.");
    expect(frame).not.toContain("**");
    expect(frame).not.toContain("`");
    expect(frame).toMatch(/• first\n• second\n {2}◦ nested/);
    expect(frame).toMatch(/3\. three\n4\. four/);
    expect(frame).toContain("  ts\n  const x = 1;");
    expect(raw).toContain("\x1b[1mbold");
    expect(raw).toContain(`${CYAN}code`);
    unmount();
  });

  it("lays out tables in aligned columns", () => {
    const { lastFrame, unmount } = render(
      <Markdown text={"| name | n |\n|---|--:|\n| alpha | 1 |\n| b | 22 |"} />,
    );
    expect(plain(lastFrame())).toContain("name  │  n\n──────┼───\nalpha │  1\nb     │ 22");
    unmount();
  });
});

describe("code blocks", () => {
  it("are coloured by language once the highlighter is loaded; unknown languages stay plain", async () => {
    const { loadHighlighter } = await import("../src/tui/markdown/highlight.js");
    await loadHighlighter();
    const source = "```ts\nconst answer: number = 42; // the answer\n```\n\n```nosuchlang\nplain words\n```";
    const { lastFrame, unmount } = render(<Markdown text={source} />);
    const frame = lastFrame() ?? "";
    const codeLine = frame.split("\n").find((l) => plain(l).includes("answer: number")) ?? "";
    // Keyword, number and comment are each given their own colour.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colours' escapes are what is counted
    const colours = new Set(codeLine.match(/\x1b\[[0-9;]*m/g));
    expect(colours.size).toBeGreaterThan(3);
    expect(plain(codeLine)).toContain("const answer: number = 42; // the answer");
    expect(frame).toContain("plain words");
    unmount();
  });
});

describe("StatusLine", () => {
  const info = {
    model: "claude-sonnet-4-5",
    mode: "normal" as const,
    cost: {
      inputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      totalTokens: 1200,
      costUsd: 0.01,
    },
    contextPercent: 12,
  };

  it("counts the background jobs while any runs, and says nothing of them otherwise", () => {
    const { lastFrame, rerender, unmount } = render(<StatusLine info={{ ...info, jobs: 2 }} />);
    expect(plain(lastFrame())).toContain("· 2 background jobs");
    rerender(<StatusLine info={{ ...info, jobs: 1 }} />);
    expect(plain(lastFrame())).toContain("· 1 background job ·");
    rerender(<StatusLine info={{ ...info, jobs: 0 }} />);
    expect(plain(lastFrame())).not.toContain("background");
    unmount();
  });
});
