/**
 * Re-frames a server-sent-events body into the one shape the SDK's reader understands: one
 * `data:` line per event, `\n\n` between events. Per the SSE rules, multi-line `data:` fields are
 * joined with newlines, `:` comments and `event:`/`id:`/`retry:` fields are dropped, and any of
 * CRLF, CR or LF ends a line, however the bytes were split across reads.
 */
export function reframeSse(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = "";
  let data: string[] = [];
  const lines = (final: boolean): string[] => {
    const out: string[] = [];
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== "\n" && c !== "\r") continue;
      // A CR at the very end may be the first half of a CRLF still in flight.
      if (c === "\r" && i === buffer.length - 1 && !final) break;
      out.push(buffer.slice(start, i));
      if (c === "\r" && buffer[i + 1] === "\n") i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
    if (final && buffer !== "") {
      out.push(buffer);
      buffer = "";
    }
    return out;
  };
  const feed = (controller: TransformStreamDefaultController<Uint8Array>, ls: string[]) => {
    for (const line of ls) {
      if (line === "") {
        if (data.length > 0) controller.enqueue(encoder.encode(`data: ${data.join("\n")}\n\n`));
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line[5] === " " ? 6 : 5));
      }
    }
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffer += decoder.decode(chunk, { stream: true });
        feed(controller, lines(false));
      },
      flush(controller) {
        buffer += decoder.decode();
        feed(controller, lines(true));
        // An unterminated last event is incomplete: pass it on as such so the reader reports it.
        if (data.length > 0) controller.enqueue(encoder.encode(`data: ${data.join("\n")}`));
      },
    }),
  );
}
