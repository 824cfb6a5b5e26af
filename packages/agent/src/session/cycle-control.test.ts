import { describe, expect, it } from "vitest";
import { CycleControl } from "./cycle-control.js";

describe("CycleControl", () => {
  it("aborts only the running cycle on interrupt; work after the cycle gets a live signal", () => {
    const control = new CycleControl();
    const first = control.begin();
    expect(control.interrupt()).toBe(true);
    expect(first.aborted).toBe(true);
    expect(control.interrupted).toBe(true);
    control.end();
    expect(control.signal.aborted).toBe(false);
    expect(control.interrupt()).toBe(false);
    const second = control.begin();
    expect(second.aborted).toBe(false);
    expect(control.interrupted).toBe(false);
  });

  it("aborts the running cycle and every later one on shutdown", () => {
    const control = new CycleControl();
    const running = control.begin();
    control.shutdown();
    expect(running.aborted).toBe(true);
    expect(control.closing).toBe(true);
    expect(control.interrupted).toBe(false);
    control.end();
    expect(control.signal.aborted).toBe(true);
    expect(control.begin().aborted).toBe(true);
  });
});
