/**
 * `--continue` in the interactive UI, in a tmux pane: the stored conversation comes back with its
 * tool blocks (an edit's diff, a command's output) and the status line's tokens, cost and context
 * share, not only its text.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

/** First request: fix the file; second: run a command; third: the answer. */
const fx = tmuxFixture(
  "resume",
  async (req, res) => {
    const body = JSON.parse(await requestText(req));
    const results = JSON.stringify(body.messages).split('"tool_result"').length - 1;
    const events =
      results === 0
        ? streamEventsFor(
            [
              {
                type: "tool_use",
                id: "toolu_edit",
                name: "edit_file",
                input: { file_path: "math.js", old_string: "return a - b;", new_string: "return a + b;" },
              },
            ],
            "tool_use",
            { input: 40_000, output: 30 },
          )
        : results === 1
          ? streamEventsFor(
              [
                {
                  type: "tool_use",
                  id: "toolu_shell",
                  name: "shell",
                  input: { command: "echo checked-the-sum" },
                },
              ],
              "tool_use",
              { input: 45_000, output: 20 },
            )
          : streamEventsFor([{ type: "text", text: "Fixed the sum." }], "end_turn", {
              input: 50_000,
              output: 40,
            });
    sendEvents(res, events);
  },
  {
    prepare: (_root, project) =>
      writeFile(join(project, "math.js"), "function add(a, b) {\n  return a - b;\n}\n"),
  },
);

describe("--continue in the interactive UI", () => {
  it("restores tool blocks with their diff and output, and the tokens, cost and context figures", async () => {
    const first = fx.start("resume-first", ["--provider", "anthropic", "--mode", "yolo"]);
    await first.waitFor("Ask anything");
    first.type("fix the sum");
    first.press("Enter");
    const live = await first.waitFor("Fixed the sum.");
    expect(await readFile(join(fx.project, "math.js"), "utf8")).toContain("return a + b;");
    const figures = /(\d[\d.]*k?) tokens · \$(\d+\.\d+) · ctx (\d+)%/.exec(
      await first.waitForScreen((s) => /ctx \d+%/.test(s), "the status line's figures"),
    );
    expect(figures).not.toBeNull();
    expect(live).toContain("+ ");
    first.type("/exit");
    first.press("Enter");
    await first.waitFor("resume it with");
    first.kill();

    const second = fx.start("resume-second", ["--provider", "anthropic", "--continue"]);
    const restored = await second.waitFor("Fixed the sum.");
    // The edit's block with its diff, and the command's block with its output.
    expect(restored).toMatch(/Edit math\.js/);
    expect(restored).toContain("+1 −1");
    expect(restored).toMatch(/-\s*return a - b;/);
    expect(restored).toMatch(/\+\s*return a \+ b;/);
    expect(restored).toMatch(/Shell echo checked-the-sum/);
    expect(restored).toContain("checked-the-sum");
    expect(restored).toMatch(/exit 0 · \d+ ms/);
    // The same tokens, cost and context share as when the conversation was left.
    const status = await second.waitForScreen((s) => /ctx \d+%/.test(s), "the restored figures");
    expect(status).toContain(`${figures?.[1]} tokens · $${figures?.[2]} · ctx ${figures?.[3]}%`);

    // The restored calls can be viewed whole: the command's output, then (←) the edit's diff.
    second.press("C-o");
    const shell = await second.waitFor("call 2 of 2");
    expect(shell).toContain("Exit code: 0");
    second.press("Left");
    const edit = await second.waitFor("call 1 of 2");
    expect(edit).toMatch(/diff lines/);
    // The tool's own diff: the whole line, indentation included.
    expect(edit).toContain("│ +  return a + b;");
    second.press("Escape");
    await second.waitForScreen(
      (s) => s.includes("Ask anything") && !s.includes("call 1 of 2"),
      "the input back",
    );
  }, 90_000);
});
