import { describe, expect, it } from "vitest";
import { EventStream } from "./event-stream.js";

describe("EventStream", () => {
  it("delivers to each iterator from its attach point and ends on close", async () => {
    const s = new EventStream<number>();
    s.emit(0);
    const a = s.iterate();
    s.emit(1);
    const b = s.iterate();
    s.emit(2);
    s.close();
    s.emit(3);
    const drain = async (it: AsyncIterable<number>) => {
      const out: number[] = [];
      for await (const n of it) out.push(n);
      return out;
    };
    expect(await drain(a)).toEqual([1, 2]);
    expect(await drain(b)).toEqual([2]);
    expect(await drain(s.iterate())).toEqual([]);
  });

  it("stops buffering for an iterator that returned, and survives a throwing listener", async () => {
    const s = new EventStream<number>();
    const seen: number[] = [];
    s.subscribe(() => {
      throw new Error("bad host");
    });
    s.subscribe((n) => seen.push(n));
    const it = s.iterate();
    s.emit(1);
    expect(await it.next()).toEqual({ value: 1, done: false });
    await it.return?.();
    s.emit(2);
    expect(await it.next()).toEqual({ value: undefined, done: true });
    expect(seen).toEqual([1, 2]);
  });
});
