/**
 * A dialog's list on short and narrow screens: /model at 80x24 and 80x16 keeps the dialog's
 * title on the screen (fewer options show on a short one, the rest scroll), and each model's id
 * stays whole on its line while the description beside it wraps.
 */
import { listModels } from "@attractor/llm";
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const fx = tmuxFixture("dialogs", (_req, res) => {
  sendEvents(
    res,
    streamEventsFor([{ type: "text", text: "Answered." }], "end_turn", { input: 10, output: 5 }),
  );
});

describe("dialogs on small screens", () => {
  for (const rows of [24, 16]) {
    it(`/model at 80x${rows} shows its title and whole model ids`, async () => {
      const terminal = fx.start(`dialog${rows}`, undefined, undefined, { columns: 80, rows });
      await terminal.waitFor("Ask anything");
      terminal.type("/model");
      terminal.press("Enter");
      const screen = await terminal.waitFor("esc cancel");
      expect(screen).toContain("Model for this session");
      expect(screen.trimEnd().split("\n").length).toBeLessThanOrEqual(rows);
      const ids = new Set(listModels("anthropic").map((m) => m.id));
      // Each option's line names a model the provider has, never a cut-off id.
      const shown = [...screen.matchAll(/^│\s+(?:❯ )?(?:\d\. )?\s*(claude-\S+) /gm)].map((m) => m[1]);
      expect(shown.length).toBeGreaterThanOrEqual(3);
      for (const id of shown) expect(ids).toContain(id);
      terminal.press("Escape");
      await terminal.waitFor("Model unchanged");
    }, 60_000);
  }
});
