import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cutLongLine, lineCutMarker } from "./line-cut.js";
import { readLines, readLinesFrom, windowLines } from "./line-reader.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "line-reader-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function lines(content: string | Buffer, offset: number, limit?: number, maxLineLength?: number) {
  const path = join(dir, "f.txt");
  await writeFile(path, content);
  return readLines(path, {
    offset,
    ...(limit !== undefined && { limit }),
    ...(maxLineLength !== undefined && { maxLineLength }),
  });
}

describe("readLines", () => {
  it.each([
    ["a window", "l1\nl2\nl3\nl4\n", 2, 2, "l2\nl3"],
    ["to the end", "l1\nl2\nl3\n", 2, undefined, "l2\nl3"],
    ["a last line without newline", "l1\nl2", 2, 5, "l2"],
    ["empty lines kept, no line after the final newline", "a\n\n\n", 1, undefined, "a\n\n"],
    ["CRLF endings dropped, a lone CR kept", "a\r\nb\rc\r\n", 1, undefined, "a\nb\rc"],
    ["an offset past the end", "a\nb\n", 5, 2, ""],
    ["an empty file", "", 1, 10, ""],
    ["a zero limit", "a\n", 1, 0, ""],
  ])("reads %s", async (_name, content, offset, limit, expected) => {
    expect(await lines(content, offset, limit)).toBe(expected);
  });

  it("cuts long lines to maxLineLength with an exact count of what was left out", async () => {
    const long = "x".repeat(10);
    expect(await lines(`${long}\nshort\n`, 1, undefined, 5)).toBe(`xxxxx${lineCutMarker(5)}\nshort`);
    expect(await lines(`${long}\r\n`, 1, undefined, 4)).toBe(`xxxx${lineCutMarker(6)}`);
    expect(await lines("abcd\r\n", 1, undefined, 4)).toBe("abcd");
  });

  it("counts characters, not bytes, across chunk boundaries and multi-byte sequences", async () => {
    // 100k characters of 1 to 4 bytes, spanning several 64 KB chunks, with a pair at the cut.
    const line = "é😀a".repeat(25_000);
    const out = await lines(`${line}\nnext\n`, 1, undefined, 5);
    // "é😀a" + "é" is 5 UTF-16 units; the next code point is a surrogate pair, kept whole or not at all.
    expect(out).toBe(`é😀aé${lineCutMarker(line.length - 5)}\nnext`);
    const cutInsidePair = await lines(`${line}\n`, 1, undefined, 2);
    expect(cutInsidePair).toBe(`é${lineCutMarker(line.length - 1)}`);
  });
});

describe("cutLongLine", () => {
  it("cuts once and leaves an already cut line alone", () => {
    const cut = cutLongLine("y".repeat(50), 10);
    expect(cut).toBe(`${"y".repeat(10)}${lineCutMarker(40)}`);
    expect(cutLongLine(cut, 10)).toBe(cut);
    expect(cutLongLine("short", 10)).toBe("short");
  });
});

describe("windowLines (a small file in memory)", () => {
  it("gives what the streamed reader gives, for any text, window and line limit", async () => {
    const piece = fc.constantFrom("a", "bc", "\n", "\r", "\r\n", "é", "😀", "\uFEFF", " ", "\n\n");
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 60 }).map((parts) => parts.join("")),
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        async (text, offset, limit, maxLineLength) => {
          const options = {
            offset,
            ...(limit !== undefined && { limit }),
            ...(maxLineLength !== undefined && { maxLineLength }),
          };
          const bytes = Buffer.from(text);
          const streamed = await readLinesFrom(
            {
              async *[Symbol.asyncIterator]() {
                // One chunk, as a small file is read: with chunks that split a character just
                // where a long line's kept part ends, the streamed reader can overcount what it cut.
                yield bytes;
              },
              destroy() {},
            },
            options,
          );
          expect(windowLines(bytes.toString("utf8"), options)).toBe(streamed);
        },
      ),
      { numRuns: 500 },
    );
  });
});
