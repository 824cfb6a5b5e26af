/**
 * Input features in a real terminal: `!command` runs through the permission prompt and its output
 * reaches the model; `@` completes a project file with Tab (a .gitignored one is not offered) and
 * the file's lines reach the model at the start of the message, labelled as already provided.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { waitForFile } from "./support/tmux.js";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

/** The user messages of each request, joined. */
const sent: string[] = [];

const fx = tmuxFixture(
  "input",
  async (req, res) => {
    const body = JSON.parse(await requestText(req));
    const texts: string[] = [];
    for (const m of body.messages ?? [])
      if (m.role === "user")
        for (const b of typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content)
          if (b.type === "text") texts.push(b.text);
    sent.push(texts.join("\n"));
    sendEvents(
      res,
      streamEventsFor([{ type: "text", text: `Answer ${sent.length}.` }], "end_turn", {
        input: 10,
        output: 5,
      }),
    );
  },
  {
    prepare: async (_root, project) => {
      await mkdir(join(project, "src"), { recursive: true });
      await mkdir(join(project, "build"), { recursive: true });
      await writeFile(join(project, "src", "calculator.ts"), "one\ntwo\nthree\nfour\n");
      await writeFile(join(project, "build", "calculator.js"), "built\n");
      await writeFile(join(project, ".gitignore"), "build/\n");
    },
  },
);

describe("input features in tmux", () => {
  it("!command asks, runs, shows its output and gives it to the model; @ completes and attaches a file", async () => {
    const terminal = fx.start("input");
    const { waitFor, type, press } = terminal;
    await waitFor("Ask anything");

    // A command that writes a file goes through the permission prompt.
    type("!echo made > made.txt && echo wrote-it");
    press("Enter");
    await waitFor("Run a command?");
    press("y");
    await waitFor("wrote-it");
    await waitFor("added to the conversation as context");
    await waitForFile(join(fx.project, "made.txt"), "made\n");
    expect(sent).toEqual([]);

    // @calc + Tab completes to the source file, not the ignored build output.
    type("Explain @calc");
    await waitFor("@src/calculator.ts");
    expect(terminal.screen()).not.toContain("build/calculator.js");
    press("Tab");
    await waitFor("Explain @src/calculator.ts");
    type(":2-3 please");
    press("Enter");
    await waitFor("Answer 1.");
    // The transcript shows the message as typed; the attached context went to the model only.
    expect(terminal.screen()).not.toContain("attached-file");
    const message = sent[0] ?? "";
    expect(message).toContain("$ echo made > made.txt && echo wrote-it");
    expect(message).toContain("wrote-it");
    expect(message).toContain(
      '<attached-file path="src/calculator.ts" lines="2-3">\n2\ttwo\n3\tthree\n</attached-file>',
    );
    expect(message).toContain("already provided");
    expect(message).not.toContain("four");
    expect(message.trimEnd().endsWith("Explain @src/calculator.ts:2-3 please")).toBe(true);
  }, 90_000);
});
