import { describe, expect, it } from "vitest";
import { imageMediaType } from "./image.js";
import { similarNames } from "./similar-names.js";

const bytes = (...parts: (number[] | string)[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p, "latin1")] : p)));

describe("imageMediaType", () => {
  it.each([
    ["PNG", bytes([0x89], "PNG\r\n\x1a\n", [0, 0]), "image/png"],
    ["JPEG", bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
    ["GIF89a", bytes("GIF89a", [1, 0]), "image/gif"],
    ["GIF87a", bytes("GIF87a"), "image/gif"],
    ["WebP", bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "), "image/webp"],
    ["RIFF that is not WebP", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), undefined],
    ["text", bytes("hello world"), undefined],
    ["too short", bytes([0x89, 0x50]), undefined],
  ])("%s", (_name, head, expected) => {
    expect(imageMediaType(head)).toBe(expected);
  });
});

describe("similarNames", () => {
  const names = ["config.json", "Config.ts", "README.md", "main.ts", "package.json", "src"];
  it.each([
    ["confg.json", ["config.json"]],
    ["config.yaml", ["config.json", "Config.ts"]],
    ["readme.md", ["README.md"]],
    ["main.js", ["main.ts"]],
    ["zzzzzz.q", []],
  ])("%s", (wanted, expected) => {
    expect(similarNames(wanted, names)).toEqual(expected);
  });
});
