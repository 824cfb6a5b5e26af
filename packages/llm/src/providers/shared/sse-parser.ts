/** Receives one whole server-sent event: its `event` field (null when it had none) and its data lines joined by "\n". */
export type SseSink = (event: string | null, data: string) => void;

const LF = 10;
const COLON = 58;
const SPACE = 32;
const BOM = 0xfeff;

/**
 * An incremental parser of a server-sent-events body, fed bytes as they arrive however they are
 * split: one streaming TextDecoder, lines ended by LF, CR or CRLF (also a CRLF split between two
 * reads), `:` comments and fields other than `event` and `data` skipped, several `data` lines
 * joined with "\n", and an event dispatched at the blank line that ends it; an event the body
 * ends inside is dropped, as the SSE rules say. This is what the providers' SDKs parse, without
 * their per-line and per-event objects: a read that ends no line costs one decode and a push.
 */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The unfinished last line, in the pieces it came in (a long line may span many reads). */
  private readonly partial: string[] = [];
  /** The last read ended on a CR: an LF starting the next one belongs to it. */
  private skipLF = false;
  private event: string | null = null;
  private data: string | null = null;

  constructor(private readonly sink: SseSink) {}

  /** Parses the next bytes of the body; the sink is called for each event they complete. */
  push(bytes: Uint8Array): void {
    this.take(this.decoder.decode(bytes, { stream: true }), false);
  }

  /**
   * Ends the body: the last line is read, an event left without its blank line is dropped.
   * Returns whether such an event, with data, was left.
   */
  end(): boolean {
    this.take(this.decoder.decode(), true);
    const unfinished = this.data !== null;
    this.event = null;
    this.data = null;
    return unfinished;
  }

  private take(piece: string, final: boolean): void {
    if (piece === "" && !final) return;
    if (!final && piece.indexOf("\n") === -1 && piece.indexOf("\r") === -1) {
      // No line ends here: keep the piece and leave the joining to the read that ends the line.
      this.partial.push(piece);
      this.skipLF = false;
      return;
    }
    let text = piece;
    if (this.partial.length > 0) {
      this.partial.push(piece);
      text = this.partial.join("");
      this.partial.length = 0;
    }
    const n = text.length;
    let start = 0;
    if (this.skipLF) {
      this.skipLF = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    let lf = text.indexOf("\n", start);
    let cr = text.indexOf("\r", start);
    while (lf !== -1 || cr !== -1) {
      let end: number;
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        next = cr + 1;
        if (next === n) this.skipLF = !final;
        else if (text.charCodeAt(next) === LF) next++;
        cr = text.indexOf("\r", next);
      }
      if (lf !== -1 && lf < next) lf = text.indexOf("\n", next);
      this.line(text, start, end);
      start = next;
    }
    if (start < n) {
      if (final) this.line(text, start, n);
      else this.partial.push(start === 0 ? text : text.slice(start));
    }
  }

  /** One line, `text` from `start` to `end` (its line break excluded). */
  private line(text: string, start: number, end: number): void {
    if (start < end && text.charCodeAt(start) === BOM) start++;
    if (start === end) {
      this.dispatch();
      return;
    }
    if (text.charCodeAt(start) === COLON) return;
    let colon = text.indexOf(":", start);
    if (colon === -1 || colon > end) colon = end;
    const nameLength = colon - start;
    const isData = nameLength === 4 && text.startsWith("data", start);
    if (!isData && !(nameLength === 5 && text.startsWith("event", start))) return;
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = from >= end ? "" : text.slice(from, end);
    if (isData) this.data = this.data === null ? value : `${this.data}\n${value}`;
    else this.event = value;
  }

  private dispatch(): void {
    const { event, data } = this;
    // A blank line after nothing, or after only an empty event name, is no event.
    if (!event && data === null) return;
    this.event = null;
    this.data = null;
    this.sink(event, data ?? "");
  }
}

/**
 * The events of an SSE body, each turned into a value by `read` (undefined: skipped), in
 * batches: one array per read of the body that completed at least one event, so a consumer
 * awaits once per read rather than once per event. An error `read` throws ends the stream after
 * the values before it in the same read are yielded, as an event-by-event reader would.
 */
export async function* sseBatches<T>(
  body: AsyncIterable<Uint8Array>,
  read: (event: string | null, data: string) => T | undefined,
  /** Called when the body ends inside an event that has data; may throw. */
  unfinished?: () => void,
): AsyncGenerator<T[]> {
  let batch: T[] = [];
  let failed = false;
  let failure: unknown;
  const parser = new SseParser((event, data) => {
    if (failed) return;
    try {
      const value = read(event, data);
      if (value !== undefined) batch.push(value);
    } catch (err) {
      failed = true;
      failure = err;
    }
  });
  for await (const chunk of body) {
    parser.push(chunk);
    if (batch.length > 0) {
      const out = batch;
      batch = [];
      yield out;
    }
    if (failed) throw failure;
  }
  const cut = parser.end();
  if (batch.length > 0) yield batch;
  if (failed) throw failure;
  if (cut) unfinished?.();
}

/** Whether `err` is what a fetch body throws when its signal aborts (the SDKs' own test). */
export const isAbortError = (err: unknown): boolean =>
  typeof err === "object" && err !== null && (err as { name?: unknown }).name === "AbortError";
