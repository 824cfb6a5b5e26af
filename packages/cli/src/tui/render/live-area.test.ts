import { Terminal } from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { createLiveArea } from "./live-area.js";

const COLUMNS = 40;
const ROWS = 12;

/** A terminal emulator (xterm.js) with a tty's newline handling, and a live area drawn on it. */
function setup(rows = ROWS) {
  const terminal = new Terminal({
    cols: COLUMNS,
    rows,
    scrollback: 100_000,
    convertEol: true,
    allowProposedApi: true,
  });
  let pending = "";
  let written = 0;
  const area = createLiveArea({
    write: (text: string) => {
      pending += text;
      written += Buffer.byteLength(text);
    },
    rows,
    isTTY: true,
  });
  const flush = () =>
    new Promise<void>((resolve) => {
      const data = pending;
      pending = "";
      terminal.write(data, resolve);
    });
  /** Every line of the scrollback and the screen, trailing blank rows dropped. */
  const content = () => {
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return lines;
  };
  return { terminal, area, flush, content, bytes: () => written };
}

const frame = (lines: readonly string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);
const CHROME = [
  "",
  "╭──────────────────────────────────────╮",
  "│ > type here                          │",
  "╰──────────────────────────────────────╯",
  "model · normal",
];

describe("the live area", () => {
  it("adds streamed lines above an unchanged bottom without writing the bottom again", async () => {
    const { area, flush, content, bytes } = setup();
    area(frame(["answer line 1", ...CHROME]));
    await flush();
    const before = bytes();
    area(frame(["answer line 1", "answer line 2", "answer line 3", ...CHROME]));
    await flush();
    expect(content()).toEqual(["answer line 1", "answer line 2", "answer line 3", ...CHROME]);
    // Two new lines and a few control sequences; the box (about 130 bytes a line) is not rewritten.
    expect(bytes() - before).toBeLessThan(60);
  });

  it("appends to a growing line instead of writing it whole", async () => {
    const { area, flush, content, bytes } = setup();
    area(frame(["The answer begins", ...CHROME]));
    await flush();
    const before = bytes();
    area(frame(["The answer begins and goes on", ...CHROME]));
    await flush();
    expect(content()).toEqual(["The answer begins and goes on", ...CHROME]);
    expect(bytes() - before).toBeLessThan(" and goes on".length + 20);
  });

  it("turns live lines into transcript lines where they stand, without writing them again", async () => {
    const { area, flush, content, bytes } = setup();
    const block = ["● First paragraph of the answer,", "  wrapped on two lines."];
    area(frame([...block, "", "  Second para", ...CHROME]));
    await flush();
    const before = bytes();
    area.insertAbove(frame(block), frame(["", "  Second paragraph", ...CHROME]));
    await flush();
    expect(content()).toEqual([...block, "", "  Second paragraph", ...CHROME]);
    expect(bytes() - before).toBeLessThan(40);
    // The block is no longer part of the area: a smaller frame leaves it in place.
    area(frame(CHROME));
    await flush();
    expect(content()).toEqual([...block, ...CHROME]);
  });

  it("prints transcript output taller than the screen above the area and keeps the area whole", async () => {
    const { area, flush, content } = setup();
    area(frame(CHROME));
    await flush();
    const long = Array.from({ length: 30 }, (_, i) => `transcript line ${i + 1}`);
    area.insertAbove(frame(long), frame(CHROME));
    await flush();
    expect(content()).toEqual([...long, ...CHROME]);
  });

  it("keeps scrollback and screen exactly the transcript then the frame over random updates", async () => {
    // Lines from a small set so that frames share tops and bottoms the way real ones do.
    const words = [
      "",
      "alpha",
      "beta",
      "gamma gamma",
      "delta",
      "x".repeat(COLUMNS),
      "ε 日本 🎉",
      "ε 日本 🎊",
      "cafe\u0301 ok",
      "cafe ok",
      "\x1b[35m⠙\x1b[39m Working… \x1b[2m(0s)\x1b[22m",
      "\x1b[35m⠹\x1b[39m Working… \x1b[2m(1s)\x1b[22m",
      "\x1b[36m⠹\x1b[39m Working… \x1b[2m(1s)\x1b[22m",
      "\x1b[35m⠸\x1b[39m Working… \x1b[2m(2s)\x1b[22m",
      "e\u0301 and á",
      "a\u0301 and é",
    ];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const randomLines = (max: number) =>
      Array.from({ length: random(max + 1) }, () => words[random(words.length)] as string);
    for (const rows of [6, ROWS]) {
      const { area, flush, content } = setup(rows);
      const printed: string[] = [];
      let current: string[] = [];
      for (let step = 0; step < 300; step++) {
        const next = randomLines(rows - 2);
        if (random(4) === 0) {
          const text = randomLines(rows * 2);
          area.insertAbove(frame(text), frame(next));
          printed.push(...text);
        } else area(frame(next));
        current = next;
        await flush();
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the colours are not on the screen's text
        const expected = [...printed, ...current].map((line) => line.replace(/\x1b\[[0-9;]*m/g, ""));
        while (expected.length > 0 && expected.at(-1) === "") expected.pop();
        expect(content(), `step ${step} at ${rows} rows`).toEqual(expected);
      }
    }
  });

  it("never lets a frame taller than the screen leave anything behind, on random sizes", async () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 6; run++) {
      const rows = 8 + random(33);
      const { area, flush, content } = setup(rows);
      const printed: string[] = [];
      for (let step = 0; step < 40; step++) {
        // A prompt with a diff of up to three screens, or the usual short area.
        const tall = random(3) === 0;
        const size = tall ? rows + random(rows * 2) : 1 + random(rows - 2);
        const next = [
          ...Array.from({ length: size - CHROME.length }, (_, i) => `line ${i} of step ${step}`),
          ...CHROME,
        ].slice(-size);
        if (random(4) === 0) {
          const text = [`said ${step}`];
          area.insertAbove(frame(text), frame(next));
          printed.push(...text);
        } else area(frame(next));
        await flush();
        // The area shows the bottom of a tall frame, one row short of the screen.
        const shown = next.slice(-(rows - 1));
        const expected = [...printed, ...shown];
        while (expected.length > 0 && expected.at(-1) === "") expected.pop();
        expect(content(), `step ${step} at ${rows} rows`).toEqual(expected);
      }
    }
  });

  it("redraws a spinner's frame alone, not its whole line", async () => {
    const { area, flush, content, bytes } = setup();
    const line = (glyph: string, seconds: number) =>
      `\x1b[35m${glyph}\x1b[39m Working… \x1b[2m(${seconds}s · esc to interrupt)\x1b[22m`;
    area(frame([line("⠙", 3), ...CHROME]));
    await flush();
    const before = bytes();
    // The frame and the seconds change: two stretches of one character each.
    area(frame([line("⠹", 4), ...CHROME]));
    await flush();
    expect(content()).toEqual(["⠹ Working… (4s · esc to interrupt)", ...CHROME]);
    // The whole line would take 73 bytes.
    expect(bytes() - before).toBeLessThan(60);
  });

  it("clears what it drew", async () => {
    const { area, flush, content } = setup();
    area.insertAbove(frame(["kept"]), frame(["live 1", "live 2"]));
    await flush();
    area.clear();
    await flush();
    expect(content()).toEqual(["kept"]);
  });
});
