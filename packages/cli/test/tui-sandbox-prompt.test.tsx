import { createSandboxPolicy, type SandboxEscapeRequest } from "@attractor/agent";
import { render } from "ink-testing-library";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/tui/app.js";
import { createInteractiveUi, type InteractiveUi } from "../src/tui/bridge.js";
import { InputHistory } from "../src/tui/input/history.js";
import { createFakeRuntime, type FakeRuntimeFixture } from "./tui-support.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped
const plain = (frame: string | undefined) => (frame ?? "").replace(/\x1b\[[0-9;]*m/g, "");

let fx: FakeRuntimeFixture;
let ui: InteractiveUi;
let app: ReturnType<typeof render>;

async function press(chunk: string) {
  app.stdin.write(chunk);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}
const frame = () => plain(app.lastFrame());
const see = (text: string) => vi.waitFor(() => expect(frame()).toContain(text), { timeout: 15_000 });

function request(command: string): SandboxEscapeRequest {
  return {
    command,
    policy: createSandboxPolicy({ projectDirs: [fx.project], env: {} }),
    block: {
      kind: "write-outside",
      evidence: "touch: cannot touch '/etc/x': Read-only file system",
      message: "[sandbox] blocked",
    },
  };
}

beforeEach(async () => {
  fx = await createFakeRuntime();
  ui = createInteractiveUi();
  app = render(<App runtime={fx.runtime} ui={ui} onExit={() => {}} history={new InputHistory()} />);
  await see("Ask anything");
});
afterEach(async () => {
  app.unmount();
  await fx.cleanup();
});

describe("the sandbox prompt", () => {
  it("shows the blocked command and why, and answers once, always or no", async () => {
    const once = ui.askSandboxEscape?.(request("touch /etc/x"));
    await see("The sandbox blocked a command.");
    expect(frame()).toContain("It tried to write outside the project.");
    expect(frame()).toContain("$ touch /etc/x");
    expect(frame()).toContain("Read-only file system");
    expect(frame()).toContain("Always run this command outside the sandbox");
    await press("y");
    await expect(once).resolves.toBe("once");

    const always = ui.askSandboxEscape?.(request("npm install"));
    await see("$ npm install");
    await press("a");
    await expect(always).resolves.toBe("always");

    const dismissed = ui.askSandboxEscape?.(request("curl example.com"));
    await see("$ curl example.com");
    await press("\x1b");
    await expect(dismissed).resolves.toBe("no");
    await see("Ask anything");
  });

  it("settles with no when every prompt is cancelled", async () => {
    const pending = ui.askSandboxEscape?.(request("touch /etc/y"));
    await see("$ touch /etc/y");
    ui.cancelAll();
    await expect(pending).resolves.toBe("no");
  });
});
