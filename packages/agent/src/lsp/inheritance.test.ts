import { describe, expect, it } from "vitest";
import { baseNamePositions } from "./inheritance.js";

describe("baseNamePositions", () => {
  it("takes a TypeScript class's extends and implements names, not type arguments", () => {
    const header = ["export class Circle extends Base<Options> implements Shape, Drawable {"];
    const found = baseNamePositions(header, 10, { line: 10, character: 19 });
    expect(found.map((p) => header[0]!.slice(p.character).match(/^\w+/)?.[0])).toEqual([
      "Base",
      "Shape",
      "Drawable",
    ]);
    expect(found[0]).toEqual({ line: 10, character: 28 });
  });

  it("takes a Python class's bases, not keyword arguments, subscripts or the docstring below", () => {
    const header = ["class Dog(base.Animal, Generic[T], metaclass=Meta):", '    """A dog, not a cat."""'];
    const found = baseNamePositions(header, 0, { line: 0, character: 9 });
    expect(found.map((p) => header[p.line]!.slice(p.character).match(/^\w+/)?.[0])).toEqual(["Animal"]);
  });

  it("follows a header over several lines", () => {
    const header = ["interface Both", "  extends Left,", "    Right {"];
    const found = baseNamePositions(header, 5, { line: 5, character: 14 });
    expect(found).toEqual([
      { line: 6, character: 10 },
      { line: 7, character: 4 },
    ]);
  });
});
