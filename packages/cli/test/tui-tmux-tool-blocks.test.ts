/**
 * Tool blocks in a 60-column pane: a wrapped diff line keeps the line-number gutter (its
 * continuation starts under the code, not under the numbers), a command's six lines of output
 * show as six (never five and "… +1 line"), and a command stopped with Esc says so in one human
 * line, without the notes the model gets ("[Command was aborted.]", "Exit code: …", "Duration: …").
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const OLD_LINE =
  "const message = 'this is a fairly long line of code that will need to wrap at sixty columns for sure';";
const NEW_LINE =
  "const message = 'this is a changed and fairly long line of code that wraps at sixty columns, for sure';";

/** The tool call each message asks for (by its words). */
const CALLS: Readonly<Record<string, { readonly name: string; readonly input: Record<string, unknown> }>> = {
  "change the code": {
    name: "edit_file",
    input: { file_path: "code.ts", old_string: OLD_LINE, new_string: NEW_LINE },
  },
  "print six lines": {
    name: "shell",
    input: { command: "for i in 1 2 3 4 5 6; do echo output line $i; done" },
  },
  "wait a while": { name: "shell", input: { command: "echo started; sleep 30" } },
};

const fx = tmuxFixture(
  "toolblocks",
  async (req, res) => {
    const body = JSON.parse(await requestText(req));
    const last = JSON.stringify(body.messages.at(-1));
    const asked = Object.keys(CALLS).find((words) => last.includes(words));
    const call = asked === undefined ? undefined : CALLS[asked];
    sendEvents(
      res,
      call === undefined
        ? streamEventsFor([{ type: "text", text: "Done with it." }], "end_turn", { input: 300, output: 20 })
        : streamEventsFor(
            [
              {
                type: "tool_use",
                id: `toolu_${asked?.replace(/ /g, "_")}`,
                name: call.name,
                input: call.input,
              },
            ],
            "tool_use",
            { input: 250, output: 40 },
          ),
    );
  },
  {
    prepare: async (_root, project) => {
      await writeFile(join(project, "code.ts"), `// head\n${OLD_LINE}\n// tail\n`);
    },
  },
);

describe("tool blocks at 60 columns", () => {
  it("keeps the diff's gutter on wrapped lines, shows six lines as six, and says Esc stopped a command", async () => {
    const terminal = fx.start(
      "toolblocks",
      ["--provider", "anthropic", "--allowedTools", "shell,edit_file"],
      undefined,
      { columns: 60, rows: 30 },
    );
    const { waitFor, type, press } = terminal;
    await waitFor("Ask anything");
    type("change the code");
    press("Enter");
    await waitFor("Done with it.");
    const edited = terminal.screen().split("\n");
    const removed = edited.findIndex((l) => /^\s+2 - const message/.test(l));
    const added = edited.findIndex((l) => /^\s+2 \+ const message/.test(l));
    expect(removed).toBeGreaterThan(0);
    expect(added).toBeGreaterThan(removed);
    // Each wrapped diff line goes on under its code: the gutter's columns stay blank.
    const codeColumn = (edited[removed] ?? "").indexOf("const");
    for (const continued of [edited[removed + 1], edited[added + 1]]) {
      expect(continued?.slice(0, codeColumn).trim()).toBe("");
      expect(continued?.slice(codeColumn, codeColumn + 1)).not.toBe(" ");
    }
    expect(edited.every((l) => [...l].length <= 60)).toBe(true);

    type("print six lines");
    press("Enter");
    await terminal.waitForScreen((s) => (s.match(/Done with it\./g) ?? []).length >= 2, "the second answer");
    const six = terminal.screen();
    for (let i = 1; i <= 6; i++) expect(six).toContain(`output line ${i}`);
    expect(six).not.toMatch(/\+1 line/);

    type("wait a while");
    press("Enter");
    await waitFor("started");
    press("Escape");
    const stopped = await terminal.waitForScreen((s) => /stopped after/.test(s), "the stopped command");
    await new Promise((r) => setTimeout(r, 500));
    const after = terminal.screen();
    expect(after).toMatch(/⎿ {2}stopped after [\d.]+ m?s/);
    expect(after).not.toMatch(/Command was aborted|Exit code|Duration:|Interrupted by the user before/);
    expect(stopped).toContain("started");
  }, 60_000);
});
