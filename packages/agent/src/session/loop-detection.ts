import { createHash } from "node:crypto";

/** How many detections within one input end the cycle, unless configured otherwise. */
export const DEFAULT_MAX_LOOP_DETECTIONS = 3;

/** The error that ends a cycle whose model kept repeating itself after the warnings. */
export const loopStopMessage = (detections: number): string =>
  `Stopped: the model kept repeating the same tool calls after ${detections} loop warnings. Change the instructions or the approach and try again.`;

/** The warning text the spec prescribes, for a window of n calls. */
export const loopWarning = (n: number): string =>
  `Loop detected: the last ${n} tool calls follow a repeating pattern. Try a different approach.`;

/** A JSON text with object keys sorted, so argument order does not change a signature. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * Canonical arguments up to this length are kept in the signature as they are: a hash costs more
 * than the comparison of a short text, and every tool call of every round gets a signature.
 */
const INLINE_ARGUMENTS = 512;

/**
 * The identity of a tool call for loop detection: its name and its canonical arguments, or a hash
 * of them when they are long (the two forms cannot be equal: `:` before the text, `#` before a hash).
 */
export function toolCallSignature(name: string, args: unknown): string {
  const json = canonicalJson(args);
  if (json.length <= INLINE_ARGUMENTS) return `${name}:${json}`;
  return `${name}#${createHash("sha1").update(json).digest("base64url")}`;
}

/**
 * The length (1, 2 or 3) of the shortest cycle the last `window` signatures repeat, or undefined.
 * Unlike a chunk-by-chunk comparison, the window need not be a multiple of the cycle length: a
 * 3-cycle fills a window of 10 as three whole cycles and one partial one, and is still caught.
 */
export function detectLoop(signatures: readonly string[], window: number): number | undefined {
  if (window < 2 || signatures.length < window) return undefined;
  const tail = signatures.slice(signatures.length - window);
  for (let length = 1; length <= 3; length++) {
    // At least two full repetitions, or a "pattern" is just the window itself.
    if (length * 2 > window) break;
    let repeats = true;
    for (let i = 0; i + length < tail.length; i++) {
      if (tail[i] !== tail[i + length]) {
        repeats = false;
        break;
      }
    }
    if (repeats) return length;
  }
  return undefined;
}

/** Tracks tool-call signatures over a sliding window and reports repeating cycles. */
export class LoopDetector {
  private signatures: string[] = [];
  private detected = 0;

  /** Loops detected since the last resetCount(). */
  get detections(): number {
    return this.detected;
  }

  /** Starts counting detections afresh (a new input). */
  resetCount(): void {
    this.detected = 0;
  }

  constructor(private readonly window: number) {}

  /** Records one call; returns the cycle length when the window now repeats one. */
  record(name: string, args: unknown): number | undefined {
    this.signatures.push(toolCallSignature(name, args));
    if (this.signatures.length > this.window) this.signatures.shift();
    const length = detectLoop(this.signatures, this.window);
    // Start over after a warning so the model gets a full window to change course.
    if (length !== undefined) {
      this.signatures = [];
      this.detected++;
    }
    return length;
  }

  /** Forgets every recorded call. */
  reset(): void {
    this.signatures = [];
  }
}
