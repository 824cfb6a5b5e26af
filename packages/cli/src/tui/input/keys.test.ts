import type { Key } from "ink";
import { describe, expect, it } from "vitest";
import { decodeKey, isNewlineEnter } from "./keys.js";

const NONE = { return: false, shift: false, ctrl: false, meta: false } as Key;

describe("decodeKey", () => {
  it("reads xterm modifyOtherKeys sequences as the keys they stand for", () => {
    const shiftEnter = decodeKey("[27;2;13~", NONE);
    expect(shiftEnter.input).toBe("\r");
    expect(isNewlineEnter(shiftEnter.key)).toBe(true);
    expect(isNewlineEnter(decodeKey("\x1b[27;5;13~", NONE).key)).toBe(true);
    const ctrlC = decodeKey("[27;5;99~", NONE);
    expect([ctrlC.input, ctrlC.key.ctrl]).toEqual(["c", true]);
    const altBackspace = decodeKey("[27;3;127~", NONE);
    expect([altBackspace.input, altBackspace.key.delete, altBackspace.key.meta]).toEqual(["", true, true]);
    expect(decodeKey("[27;2;97~", NONE).input).toBe("A");
  });

  it("leaves everything else as it came", () => {
    expect(decodeKey("[27;2", NONE)).toEqual({ input: "[27;2", key: NONE });
    expect(decodeKey("hello", NONE).input).toBe("hello");
    expect(isNewlineEnter({ ...NONE, return: true })).toBe(false);
  });
});
