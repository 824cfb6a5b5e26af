import { describe, expect, it } from "vitest";
import { isStrictCompatible, strictFor } from "./strict-schema.js";

const closed = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe("strict-mode compatibility", () => {
  it("accepts a closed object whose properties are all required, nested ones too", () => {
    const schema = closed({
      name: { type: "string", description: "who" },
      tags: { type: "array", items: closed({ label: { type: "string", enum: ["a", "b"] } }) },
      note: { anyOf: [{ type: "string" }, { type: "null" }] },
      ref: { $ref: "#/$defs/point" },
    });
    expect(isStrictCompatible({ ...schema, $defs: { point: closed({ x: { type: "number" } }) } })).toBe(true);
  });

  it("refuses an optional field, an open object, an unsupported keyword or a union at the root", () => {
    expect(isStrictCompatible({ ...closed({ a: { type: "string" } }), properties: { a: {}, b: {} } })).toBe(
      false,
    );
    expect(
      isStrictCompatible({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }),
    ).toBe(false);
    expect(isStrictCompatible(closed({ a: { type: "string", default: "x" } }))).toBe(false);
    expect(isStrictCompatible(closed({ a: { oneOf: [{ type: "string" }] } }))).toBe(false);
    expect(isStrictCompatible({ anyOf: [closed({ a: { type: "string" } })] })).toBe(false);
    expect(
      isStrictCompatible(closed({ inner: { type: "object", properties: { x: { type: "number" } } } })),
    ).toBe(false);
  });

  it("sends strict only when asked (or by default) and possible", () => {
    const ok = closed({ a: { type: "string" } });
    expect(strictFor(ok, undefined)).toBe(true);
    expect(strictFor(ok, false)).toBe(false);
    expect(strictFor({ type: "object", properties: { a: { type: "string" } } }, true)).toBe(false);
  });
});
