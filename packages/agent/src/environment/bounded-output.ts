import { StringDecoder } from "node:string_decoder";

/** A marker placed where bytes were dropped from the middle of captured output. */
export function droppedMarker(droppedBytes: number): string {
  return `\n[... ${droppedBytes} bytes of output omitted ...]\n`;
}

/**
 * Keeps the first and the last `limit` bytes of a stream and counts what falls in between, so a
 * command printing gigabytes costs a bounded amount of memory.
 */
export class BoundedOutput {
  private readonly limit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Appends a chunk. */
  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headBytes < this.limit) {
      const take = Math.min(this.limit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
      if (rest.length === 0) return;
    }
    this.tail.push(rest);
    this.tailBytes += rest.length;
    if (this.tailBytes > 2 * this.limit) this.compactTail();
  }

  private compactTail(): void {
    const all = Buffer.concat(this.tail, this.tailBytes);
    const excess = all.length - this.limit;
    this.dropped += excess;
    // Copy so the large concatenated buffer can be freed.
    this.tail = [Buffer.from(all.subarray(excess))];
    this.tailBytes = this.limit;
  }

  /** Bytes dropped from the middle so far. */
  droppedBytes(): number {
    if (this.tailBytes > this.limit) return this.dropped + this.tailBytes - this.limit;
    return this.dropped;
  }

  /** The kept text, with a marker where bytes were dropped; cuts never split a UTF-8 sequence badly. */
  text(): string {
    if (this.tailBytes > this.limit) this.compactTail();
    const head = decodeAll(this.head);
    if (this.dropped === 0) return head + decodeAll(this.tail);
    return head + droppedMarker(this.dropped) + decodeAll(this.tail).replace(/^\uFFFD+/, "");
  }
}

function decodeAll(parts: readonly Buffer[]): string {
  const decoder = new StringDecoder("utf8");
  let s = "";
  for (const p of parts) s += decoder.write(p);
  return s + decoder.end();
}
