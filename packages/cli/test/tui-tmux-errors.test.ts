/**
 * Failed model calls in the interactive UI, in a tmux pane: a retry shows a countdown while it
 * waits (the number of retries comes from the user's settings), and a failure that outlasts the
 * retries, or an unknown model, reads as advice on what to do.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorBody } from "@attractor/llm/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { TmuxTerminal } from "./support/tmux.js";
import { tmuxFixture } from "./support/tmux-fixture.js";

/** How the Messages API server fails every request. */
let failure: { status: number; type: string; message: string; retryAfter?: string };
let requests = 0;

const fx = tmuxFixture(
  "errors",
  async (req, res) => {
    for await (const _ of req) {
      // The body is not needed.
    }
    requests++;
    res.writeHead(failure.status, {
      "content-type": "application/json",
      ...(failure.retryAfter !== undefined && { "retry-after": failure.retryAfter }),
    });
    res.end(JSON.stringify(errorBody(failure.type, failure.message)));
  },
  {
    // Two retries, about three seconds apart (with jitter): long enough to see the countdown move.
    prepare: async (root) => {
      await mkdir(join(root, "attractor"), { recursive: true });
      await writeFile(
        join(root, "attractor", "settings.json"),
        JSON.stringify({ retry: { maxRetries: 2, baseDelayMs: 3000, maxDelayMs: 3000 } }),
      );
    },
  },
);
let terminal: TmuxTerminal | undefined;

afterEach(() => {
  terminal?.kill();
  terminal = undefined;
});

function start(name: string, args: readonly string[] = []): TmuxTerminal {
  terminal = fx.start(name, ["--provider", "anthropic", ...args]);
  return terminal;
}

describe("failed model calls", () => {
  it("counts down to each retry, then says the provider is overloaded and what to do", async () => {
    failure = { status: 529, type: "overloaded_error", message: "Overloaded" };
    requests = 0;
    const t = start("errors-overloaded");
    await t.waitFor("Ask anything");
    t.type("hello");
    t.press("Enter");
    const counting = await t.waitFor("(retry 1 of 2)");
    expect(counting).toMatch(/Retrying in [1-5]s \(retry 1 of 2\)/);
    // The countdown moves while it waits.
    await t.waitForScreen((s) => /Retrying in [12]s \(retry 1 of 2\)/.test(s), "the countdown going down");
    await t.waitFor("(retry 2 of 2)");
    const advice = await t.waitFor("is overloaded and kept refusing after every retry");
    expect(advice).toContain("wait a few minutes and send the message again");
    expect(advice).not.toContain("Retrying in");
    expect(requests).toBe(3);
    // The unanswered message is back in the input, and the retries took no lines of their own.
    await t.waitForScreen((s) => /│ › hello/.test(s), "the message back in the input");
    expect(t.history()).not.toMatch(/retrying \(/);
  }, 60_000);

  it("stops waiting for the next attempt on Esc", async () => {
    failure = { status: 529, type: "overloaded_error", message: "Overloaded" };
    requests = 0;
    const t = start("errors-esc");
    await t.waitFor("Ask anything");
    t.type("hello");
    t.press("Enter");
    await t.waitFor("(retry 1 of 2)");
    t.press("Escape");
    const stopped = await t.waitForScreen(
      (s) => s.includes("Ask anything") && !s.includes("Retrying in"),
      "the wait stopped",
    );
    expect(stopped).not.toContain("(retry 2 of 2)");
    expect(requests).toBe(1);
  }, 60_000);

  it("names the models the provider has when the model does not exist", async () => {
    failure = { status: 404, type: "not_found_error", message: "model: claude-no-such-model" };
    const t = start("errors-not-found", ["--model", "claude-no-such-model"]);
    await t.waitFor("Ask anything");
    t.type("hello");
    t.press("Enter");
    const advice = await t.waitFor("has no model called claude-no-such-model");
    expect(advice).toMatch(/Models it offers include claude-/);
    expect(advice).toContain("/model");
  }, 60_000);

  it("says which key to check when the key is refused", async () => {
    failure = { status: 401, type: "authentication_error", message: "invalid x-api-key" };
    const t = start("errors-auth");
    await t.waitFor("Ask anything");
    t.type("hello");
    t.press("Enter");
    const advice = await t.waitFor("The provider refused the API key");
    expect(advice).toContain("ANTHROPIC_API_KEY");
  }, 60_000);
});
