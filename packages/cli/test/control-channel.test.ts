import { describe, expect, it } from "vitest";
import { ControlRequestError, createControlChannel } from "../src/claude-sdk/control-channel.js";

/** A channel whose written lines are kept, parsed. */
function channel() {
  const written: { type: string; request_id: string; request?: { subtype: string } }[] = [];
  const c = createControlChannel((line) => written.push(JSON.parse(line)));
  return { c, written };
}

describe("the control channel", () => {
  it("matches each response to its request, whatever the order", async () => {
    const { c, written } = channel();
    const first = c.request({ subtype: "can_use_tool", tool_name: "Bash" });
    const second = c.request({ subtype: "hook_callback", callback_id: "hook_0" });
    const [a, b] = written;
    expect(
      c.receive({ response: { subtype: "success", request_id: b?.request_id, response: { n: 2 } } }),
    ).toBe(true);
    c.receive({ response: { subtype: "success", request_id: a?.request_id, response: { n: 1 } } });
    await expect(first).resolves.toEqual({ n: 1 });
    await expect(second).resolves.toEqual({ n: 2 });
    // A response to nothing pending is not taken.
    expect(c.receive({ response: { subtype: "success", request_id: a?.request_id } })).toBe(false);
  });

  it("fails a request on an error answer, a timeout (cancelling it), an abort and a close", async () => {
    const { c, written } = channel();
    const errored = c.request({ subtype: "can_use_tool" });
    c.receive({ response: { subtype: "error", request_id: written[0]?.request_id, error: "it threw" } });
    await expect(errored).rejects.toMatchObject({ reason: "error", message: "it threw" });

    const late = c.request({ subtype: "can_use_tool" }, { timeoutMs: 20 });
    await expect(late).rejects.toMatchObject({ reason: "timeout" });
    expect(written.at(-1)).toEqual({ type: "control_cancel_request", request_id: written[1]?.request_id });

    const controller = new AbortController();
    const aborted = c.request({ subtype: "hook_callback" }, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ reason: "cancelled" });

    const open = c.request({ subtype: "mcp_message" });
    c.close();
    await expect(open).rejects.toBeInstanceOf(ControlRequestError);
    await expect(open).rejects.toMatchObject({ reason: "closed" });
    await expect(c.request({ subtype: "can_use_tool" })).rejects.toMatchObject({ reason: "closed" });
  });
});
