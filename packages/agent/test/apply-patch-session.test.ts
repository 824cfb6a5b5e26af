// A model that acts on apply_patch's refusal: the scripted model sends a hunk with a stale context
// line, reads the refusal it gets back, and sends the hunk the refusal rebuilt from the file.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { Session } from "../src/session/session.js";
import { type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import { applyPatchTool } from "../src/tools/apply-patch/index.js";
import { collect, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const FILE = [
  "def total(items):",
  "    result = 0",
  "    for item in items:",
  "        result += item.price",
  "    return result",
  "",
].join("\n");

interface ToolResultMessage {
  readonly role: string;
  readonly content: readonly { toolResult?: { content: string; isError: boolean } }[];
}

const lastToolResult = (messages: readonly ToolResultMessage[]) =>
  messages.filter((m) => m.role === "tool").at(-1)?.content[0]?.toolResult;

describe("apply_patch refusals a model can act on", () => {
  it("a refused hunk, corrected from the refusal alone, applies on the next call", async () => {
    await writeFile(join(dir, "cart.py"), FILE);
    const wrap = (hunk: string) => `*** Begin Patch\n*** Update File: cart.py\n${hunk}\n*** End Patch`;
    const client = scriptedClient((request, call): ScriptedReply => {
      if (call === 0) {
        // The model remembers `item.cost` where the file says `item.price`.
        const hunk = [
          "@@ def total(items):",
          "     for item in items:",
          "-        result += item.cost",
          "+        result += item.price * item.quantity",
          "     return result",
        ].join("\n");
        return { toolCalls: [{ name: "apply_patch", id: "p1", args: { patch: wrap(hunk) } }] };
      }
      if (call === 1) {
        const refusal = lastToolResult(request.messages as readonly ToolResultMessage[]);
        const advice = refusal?.content.split("as the file has them:\n")[1];
        if (refusal?.isError !== true || advice === undefined) return { text: "no advice to act on" };
        return { toolCalls: [{ name: "apply_patch", id: "p2", args: { patch: wrap(advice) } }] };
      }
      return { text: "done" };
    });
    const session = new Session({
      profile: testProfile([applyPatchTool()]),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client,
      config: {},
    });
    const events = collect(session.events());
    await session.submit("charge for the quantity too");
    await session.close();
    await events;

    const first = lastToolResult(client.requests[1]?.messages as readonly ToolResultMessage[]);
    expect(first?.isError).toBe(true);
    expect(first?.content).toContain("cart.py: hunk 1 of 1 (@@ def total(items):)");
    expect(first?.content).toContain("> 4 |         result += item.price");
    const second = lastToolResult(client.requests[2]?.messages as readonly ToolResultMessage[]);
    expect(second?.isError).toBe(false);
    expect(second?.content).toContain("M cart.py");
    expect(await readFile(join(dir, "cart.py"), "utf8")).toBe(
      FILE.replace("result += item.price\n", "result += item.price * item.quantity\n"),
    );
  });
});
