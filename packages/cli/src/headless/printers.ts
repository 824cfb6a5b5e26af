import type { SessionEvent } from "@attractor/agent";
import type { HeadlessResult, RuntimeNotice } from "@attractor/runtime";
import { createClaudeStream, type StreamInit, summarizeCall } from "@attractor/runtime";
import { visibleControls } from "../terminal/visible-controls.js";
import type { OutputFormat } from "./output-formats.js";

export { OUTPUT_FORMATS, type OutputFormat } from "./output-formats.js";

/** Somewhere to write text (process.stdout, process.stderr, a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** Renders a headless run: events as they happen, the result at the end. */
export interface HeadlessPrinter {
  onEvent(event: SessionEvent | RuntimeNotice): void;
  finish(result: HeadlessResult): void;
}

/** A runtime notice as a stream-json line. */
export interface NoticeLine {
  readonly kind: "notice";
  readonly timestamp: string;
  readonly data: RuntimeNotice;
}

const isSessionEvent = (e: SessionEvent | RuntimeNotice): e is SessionEvent =>
  "sessionId" in e && "data" in e;

/** What a printer may need besides the sinks. */
export interface PrinterOptions {
  /** stream-json: also emit attractor's own events as `attractor_event` lines. */
  readonly verbose?: boolean;
  /** stream-json: the facts of the `system`/`init` line, read when the session starts. */
  readonly init?: () => StreamInit;
  /** Redacts secrets from what is printed (data or text), as transcripts are; none by default. */
  readonly scrub?: Scrub;
}

/** Returns a copy of JSON data (or a string) with secrets redacted. */
export type Scrub = (value: unknown) => unknown;

/**
 * The printer for a format: text and json write the answer or result at the end, stream-json
 * Claude Code's messages as they complete, events every event.
 */
export function createPrinter(
  format: OutputFormat,
  stdout: TextSink,
  stderr: TextSink,
  options: PrinterOptions = {},
): HeadlessPrinter {
  const scrub = options.scrub ?? ((value: unknown) => value);
  // Text for a terminal: secrets redacted, and no control sequence from the model or a tool
  // (screen clears, OSC 52 clipboard writes) reaches the terminal. JSON escapes them itself.
  const clean = (sink: TextSink): TextSink => ({
    write: (text) => sink.write(visibleControls(scrub(text) as string)),
  });
  // JSON lines: secrets redacted from the data before it is written.
  const json = (value: unknown) => stdout.write(`${JSON.stringify(scrub(value))}\n`);
  switch (format) {
    case "text":
      return textPrinter(clean(stdout), clean(stderr));
    case "json":
      return jsonPrinter(json, clean(stderr));
    case "stream-json":
      return claudeStreamPrinter(json, options);
    case "events":
      return eventsPrinter(json);
  }
}

/** Problems worth a line on stderr in every format but stream-json (which carries them itself). */
function problemLine(event: SessionEvent | RuntimeNotice): string | undefined {
  if (isSessionEvent(event)) {
    switch (event.kind) {
      case "error":
        return `error: ${event.data.message}`;
      case "warning":
        return `warning: ${event.data.message}`;
      case "turn_limit":
        return `stopped: the limit of ${event.data.value} ${event.data.limit === "max_turns" ? "model responses" : "tool rounds"} was reached`;
      case "loop_detection":
        return `warning: ${event.data.message}`;
      case "retry":
        return `retrying (${event.data.attempt}/${event.data.maxRetries}) in ${event.data.delayMs} ms: ${event.data.message}${event.data.discardPartial ? " (the answer starts again)" : ""}`;
      default:
        return undefined;
    }
  }
  if (event.kind === "hook_output") return event.text;
  return event.kind === "warning" ? `warning: ${event.message}` : undefined;
}

function firstLine(text: string, max = 200): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function textPrinter(stdout: TextSink, stderr: TextSink): HeadlessPrinter {
  return {
    onEvent(event) {
      const problem = problemLine(event);
      if (problem !== undefined) stderr.write(`${problem}\n`);
      if (!isSessionEvent(event)) return;
      if (event.kind === "tool_call_start")
        stderr.write(`· ${summarizeCall(event.data.toolName, event.data.arguments)}\n`);
      else if (event.kind === "tool_call_end" && event.data.isError)
        stderr.write(`  ✗ ${firstLine(event.data.output)}\n`);
    },
    finish(result) {
      if (result.result !== "")
        stdout.write(result.result.endsWith("\n") ? result.result : `${result.result}\n`);
    },
  };
}

function jsonPrinter(line: (value: unknown) => void, stderr: TextSink): HeadlessPrinter {
  return {
    onEvent(event) {
      const problem = problemLine(event);
      if (problem !== undefined) stderr.write(`${problem}\n`);
    },
    finish(result) {
      line(result);
    },
  };
}

function claudeStreamPrinter(line: (value: unknown) => void, options: PrinterOptions): HeadlessPrinter {
  const init =
    options.init ??
    (() => {
      throw new Error("stream-json output needs the run's init facts");
    });
  const stream = createClaudeStream({
    init,
    emit: line,
    ...(options.verbose !== undefined && { verbose: options.verbose }),
  });
  return {
    onEvent: (event) => stream.onEvent(event),
    finish(result) {
      stream.flush();
      line(result);
    },
  };
}

function eventsPrinter(line: (value: unknown) => void): HeadlessPrinter {
  // Notices raised before the session starts wait for session_start, so it is always the first line.
  let started = false;
  const early: NoticeLine[] = [];
  return {
    onEvent(event) {
      if (isSessionEvent(event)) {
        line(event);
        if (event.kind === "session_start" && !started) {
          started = true;
          for (const notice of early.splice(0)) line(notice);
        }
        return;
      }
      const notice: NoticeLine = { kind: "notice", timestamp: new Date().toISOString(), data: event };
      if (started) line(notice);
      else early.push(notice);
    },
    finish(result) {
      for (const notice of early.splice(0)) line(notice);
      line(result);
    },
  };
}
