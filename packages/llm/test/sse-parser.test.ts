import { describe, expect, it } from "vitest";
import { SseParser, sseBatches } from "../src/providers/shared/sse-parser.js";

/** A small seeded generator, so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

type Ev = { event: string | null; data: string };

const parse = (pieces: readonly Uint8Array[]): Ev[] => {
  const out: Ev[] = [];
  const parser = new SseParser((event, data) => out.push({ event, data }));
  for (const p of pieces) parser.push(p);
  parser.end();
  return out;
};

const bytes = (text: string) => new TextEncoder().encode(text);

/** `body` cut at random byte offsets (also inside a multi-byte character or a CRLF). */
function split(body: Uint8Array, rand: () => number, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < body.length; ) {
    const n = 1 + Math.floor(rand() * max);
    out.push(body.subarray(i, i + n));
    i += n;
  }
  return out;
}

const WORDS = ["hé", "wörld", "😀", '{"a":1}', "日本語", "x", "", " lead", "tab\tbed", "colon: in value"];

/** A random stream of events, its text (mixed line breaks, comments, other fields), and the events it holds. */
function stream(rand: () => number): { text: string; events: Ev[] } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const events: Ev[] = [];
  let text = rand() < 0.2 ? "\uFEFF" : "";
  const count = 1 + Math.floor(rand() * 12);
  for (let e = 0; e < count; e++) {
    const nl = pick(["\n", "\r\n", "\r"]);
    if (rand() < 0.3) text += `: keep-alive${nl}${rand() < 0.5 ? nl : ""}`;
    const event =
      rand() < 0.7 ? pick(["message_start", "content_block_delta", "response.output_text.delta"]) : null;
    const lines = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(WORDS) + pick(WORDS));
    if (event !== null) text += `event: ${event}${nl}`;
    if (rand() < 0.2) text += `id: ${e}${nl}retry: 100${nl}`;
    for (const line of lines)
      text += rand() < 0.5 || line.startsWith(" ") ? `data: ${line}${nl}` : `data:${line}${nl}`;
    text += nl;
    events.push({ event, data: lines.join("\n") });
  }
  return { text, events };
}

describe("SseParser", () => {
  it("gives the same events however the bytes of a stream are split", () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rand = random(seed);
      const { text, events } = stream(rand);
      const body = bytes(text);
      expect(parse([body]), `seed ${seed}, whole`).toEqual(events);
      expect(parse(split(body, rand, 1)), `seed ${seed}, bytewise`).toEqual(events);
      expect(parse(split(body, rand, 2 + Math.floor(rand() * 40))), `seed ${seed}, random`).toEqual(events);
    }
  });

  it("drops an event the body ends inside, and keeps the ones before it", () => {
    const body = bytes("event: a\ndata: 1\n\nevent: b\ndata: 2\n");
    expect(parse([body])).toEqual([{ event: "a", data: "1" }]);
    for (let i = 0; i <= body.length; i++) {
      expect(parse([body.subarray(0, i), body.subarray(i)])).toEqual([{ event: "a", data: "1" }]);
    }
  });

  it("ends a line at a CR and does not count an LF after it twice, also when the LF comes in the next read", () => {
    expect(parse([bytes("data: a\r"), bytes("\ndata: b\r\n\r\n")])).toEqual([{ event: null, data: "a\nb" }]);
    expect(parse([bytes("data: a\r"), bytes("data: b\r\r")])).toEqual([{ event: null, data: "a\nb" }]);
  });

  it("keeps a field without a colon, an empty data line and a value's own leading spaces", () => {
    expect(parse([bytes("data\ndata:  two\n\nevent\n\n")])).toEqual([{ event: null, data: "\n two" }]);
  });

  it("reads a line that spans many reads whole", () => {
    const long = "x".repeat(100_000);
    const body = bytes(`data: ${long}\n\n`);
    expect(parse(split(body, random(3), 1000))).toEqual([{ event: null, data: long }]);
  });
});

describe("sseBatches", () => {
  async function* reads(...texts: string[]): AsyncGenerator<Uint8Array> {
    for (const t of texts) yield bytes(t);
  }

  it("yields one batch per read that completes events, and none for reads that complete none", async () => {
    const batches: string[][] = [];
    for await (const b of sseBatches(
      reads("data: 1\n\ndata: 2\n\nda", "ta: 3", "\n\n", ": ping\n\n"),
      (_e, d) => d,
    ))
      batches.push(b);
    expect(batches).toEqual([["1", "2"], ["3"]]);
  });

  it("yields the values before a failing event in the same read, then throws its error", async () => {
    const seen: string[] = [];
    const read = (_e: string | null, d: string) => {
      if (d === "bad") throw new Error("bad event");
      return d;
    };
    await expect(
      (async () => {
        for await (const b of sseBatches(reads("data: 1\n\ndata: bad\n\ndata: 2\n\n"), read)) seen.push(...b);
      })(),
    ).rejects.toThrow("bad event");
    expect(seen).toEqual(["1"]);
  });
});
