import { describe, expect, it } from "vitest";
import { RequestTimeoutError } from "../errors.js";
import { withIdleTimeout } from "./idle-timeout.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("withIdleTimeout", () => {
  it("counts only the time spent waiting for the source, not the time the consumer holds an item", async () => {
    async function* source() {
      yield 1;
      yield 2;
      yield 3;
    }
    let cancelled = false;
    const seen: number[] = [];
    for await (const n of withIdleTimeout(source(), 40, () => (cancelled = true))) {
      seen.push(n);
      await pause(120); // three times the limit, while holding the item
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(cancelled).toBe(false);
  });

  it("fails with RequestTimeoutError when the source stalls, after cancelling it", async () => {
    // As a connection does when cancelled, the stalled source then ends.
    let cancel: () => void = () => {};
    const cancelled = new Promise<void>((resolve) => {
      cancel = resolve;
    });
    let ended = false;
    async function* stalling() {
      try {
        yield "first";
        await cancelled;
      } finally {
        ended = true;
      }
    }
    const seen: string[] = [];
    const run = async () => {
      for await (const s of withIdleTimeout(stalling(), 40, cancel, "test")) seen.push(s);
    };
    await expect(run()).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(seen).toEqual(["first"]);
    expect(ended).toBe(true);
  });
});
