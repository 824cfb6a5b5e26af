import { isAscii } from "node:buffer";
import { createReadStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { lineCutMarker, surrogateSafeEnd } from "./line-cut.js";

const NEWLINE = 0x0a;
// A character takes at most 4 bytes in UTF-8, so this many bytes always hold `max` characters.
const BYTES_PER_CHAR = 4;

export interface ReadLinesOptions {
  /** 1-based first line. */
  readonly offset: number;
  /** Lines wanted; all to the end when absent. */
  readonly limit?: number;
  /** Longer lines are cut to this many characters plus a marker, and never held whole. */
  readonly maxLineLength?: number;
}

/** One line being gathered: its kept bytes and how many characters were left out. */
class LineBuffer {
  private parts: Buffer[] = [];
  private bytes = 0;
  private full = false;
  private droppedChars = 0;
  private dropDecoder = new StringDecoder("utf8");
  private endsWithCr = false;
  private decoderOpen = false;

  constructor(private readonly maxBytes: number) {}

  add(segment: Buffer): void {
    if (segment.length === 0) return;
    this.endsWithCr = segment[segment.length - 1] === 0x0d;
    let rest = segment;
    if (!this.full) {
      let take = Math.min(this.maxBytes - this.bytes, rest.length);
      if (take < rest.length) {
        // End the kept part on a character boundary so both parts decode cleanly.
        while (take > 0 && ((rest[take] as number) & 0xc0) === 0x80) take--;
        this.full = true;
      }
      // Copy: a view would keep the whole 64 KB chunk alive.
      this.parts.push(Buffer.from(rest.subarray(0, take)));
      this.bytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    // ASCII needs no decoding to be counted, unless a character is still open in the decoder.
    if (!this.decoderOpen && isAscii(rest)) this.droppedChars += rest.length;
    else {
      this.droppedChars += this.dropDecoder.write(rest).length;
      this.decoderOpen = (rest[rest.length - 1] as number) >= 0x80;
    }
  }

  get empty(): boolean {
    return this.bytes === 0 && this.droppedChars === 0;
  }

  /** The line without its CR, cut to maxLength characters plus a marker when it was longer. */
  take(maxLength: number | undefined): string {
    let text = Buffer.concat(this.parts, this.bytes).toString("utf8");
    let dropped = this.droppedChars + this.dropDecoder.end().length;
    if (this.endsWithCr) {
      if (dropped > 0) dropped--;
      else text = text.slice(0, -1);
    }
    this.parts = [];
    this.bytes = 0;
    this.full = false;
    this.droppedChars = 0;
    this.dropDecoder = new StringDecoder("utf8");
    this.decoderOpen = false;
    this.endsWithCr = false;
    if (maxLength === undefined || text.length + dropped <= maxLength) return text;
    const end = surrogateSafeEnd(text, Math.min(maxLength, text.length));
    return text.slice(0, end) + lineCutMarker(text.length - end + dropped);
  }
}

/**
 * Reads lines [offset, offset + limit) (1-based) of a file by streaming raw bytes: lines before
 * the window are counted, not decoded; reading stops after the last wanted line; a line longer
 * than maxLineLength is cut while it is read. Memory is proportional to the lines returned, even
 * for a multi-gigabyte file or a single gigantic line. Lines end at LF (a CR before it is dropped)
 * and are joined with "\n" (no trailing newline).
 */
export function readLines(path: string, options: ReadLinesOptions): Promise<string> {
  return readLinesFrom(createReadStream(path, { highWaterMark: 64 * 1024 }), options);
}

/** readLines over any byte stream (a remote file, say); the stream is destroyed when done. */
export async function readLinesFrom(
  stream: AsyncIterable<Buffer> & { destroy(): unknown },
  options: ReadLinesOptions,
): Promise<string> {
  const { offset, limit, maxLineLength } = options;
  const out: string[] = [];
  if (limit !== undefined && limit <= 0) {
    stream.destroy();
    return "";
  }
  const line = new LineBuffer(
    maxLineLength === undefined ? Number.POSITIVE_INFINITY : (maxLineLength + 1) * BYTES_PER_CHAR,
  );
  let lineNo = 1;
  let done = false;
  try {
    for await (const chunk of stream) {
      let pos = 0;
      while (pos < chunk.length) {
        const nl = chunk.indexOf(NEWLINE, pos);
        if (lineNo < offset) {
          if (nl === -1) break;
          lineNo++;
          pos = nl + 1;
          continue;
        }
        line.add(chunk.subarray(pos, nl === -1 ? chunk.length : nl));
        if (nl === -1) break;
        out.push(line.take(maxLineLength));
        lineNo++;
        pos = nl + 1;
        if (limit !== undefined && out.length >= limit) {
          done = true;
          break;
        }
      }
      if (done) break;
    }
    // A last line without a final newline.
    if (!done && lineNo >= offset && !line.empty) out.push(line.take(maxLineLength));
  } finally {
    stream.destroy();
  }
  return out.join("\n");
}

/**
 * readLines over a file already decoded in memory (a small one), with the same result: lines end
 * at LF (a CR before it dropped), lines longer than maxLineLength cut with the marker, the window
 * joined with "\n". Only the lines of the window are copied.
 */
export function windowLines(text: string, options: ReadLinesOptions): string {
  const { offset, limit, maxLineLength } = options;
  if (limit !== undefined && limit <= 0) return "";
  let start = 0;
  for (let line = 1; line < offset; line++) {
    const nl = text.indexOf("\n", start);
    if (nl === -1) return "";
    start = nl + 1;
  }
  const out: string[] = [];
  while (start < text.length && (limit === undefined || out.length < limit)) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    let line = text.slice(start, end);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (maxLineLength !== undefined && line.length > maxLineLength) {
      const cut = surrogateSafeEnd(line, maxLineLength);
      line = line.slice(0, cut) + lineCutMarker(line.length - cut);
    }
    out.push(line);
    if (nl === -1) break;
    start = nl + 1;
  }
  return out.join("\n");
}
