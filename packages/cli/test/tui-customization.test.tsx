import type { CustomCommand } from "@attractor/runtime/customization";
import { render } from "ink-testing-library";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/tui/app.js";
import { createInteractiveUi } from "../src/tui/bridge.js";
import { InputHistory } from "../src/tui/input/history.js";
import { createFakeRuntime, type FakeRuntimeFixture, sessionEvent } from "./tui-support.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped
const plain = (frame: string | undefined) => (frame ?? "").replace(/\x1b\[[0-9;]*m/g, "");

let fx: FakeRuntimeFixture;
let app: ReturnType<typeof render>;
let ran: [string, string][];

const COMMAND: CustomCommand = {
  name: "frontend:component",
  description: "Make a component",
  argumentHint: "<name>",
  allowedTools: [],
  body: "Create $1.",
  file: "/project/.claude/commands/frontend/component.md",
  scope: "project",
};

async function press(...chunks: string[]) {
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }
}
const see = (text: string) =>
  vi.waitFor(() => expect(plain(app.lastFrame())).toContain(text), { timeout: 15_000 });

beforeEach(async () => {
  fx = await createFakeRuntime();
  ran = [];
  Object.assign(fx.runtime, {
    customCommands: [COMMAND],
    runCustomCommand: async (name: string, args: string) => void ran.push([name, args]),
  });
  app = render(
    <App runtime={fx.runtime} ui={createInteractiveUi()} onExit={() => {}} history={new InputHistory()} />,
  );
  await see("Ask anything");
});

afterEach(async () => {
  app.unmount();
  await fx.cleanup();
});

describe("customization in the interactive app", () => {
  it("suggests and completes a custom command with its hint, and runs it with its arguments", async () => {
    await press("/fro");
    await see("/frontend:component <name> · Make a component (project)");
    await press("\t");
    await see("/frontend:component ");
    await press("Button", "\r");
    await vi.waitFor(() => expect(ran).toEqual([["frontend:component", "Button"]]));
  });

  it("lists custom commands in /help", async () => {
    await press("/help", "\r");
    await see("/frontend:component <name>");
  });

  it("shows a subagent's current step while it works", async () => {
    const child = (event: ReturnType<typeof sessionEvent>) =>
      fx.runtime.emit(
        sessionEvent("subagent_event", {
          agentId: "a1",
          parentCallId: "c1",
          agentType: "test-runner",
          event,
        }),
      );
    child(
      sessionEvent("tool_call_start", { toolName: "shell", callId: "x", arguments: { command: "npm test" } }),
    );
    await see("↳ test-runner · shell npm test · 1 tool call");
  });
});
