/** A piece of streamed model text, classified. */
export type SplitPiece =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "reasoning"; readonly text: string }
  /** A whole `<tool_call>…</tool_call>` block (or the unclosed rest at flush). */
  | { readonly kind: "tool_call"; readonly raw: string };

/** A pair of tags whose content the splitter routes to one kind of piece. */
export interface SplitTag {
  readonly open: string;
  readonly close: string;
  readonly kind: "reasoning" | "tool_call";
  /** Where the close tag starts in the block's content, when finding it takes more than a search. */
  readonly findClose?: (body: string) => number | undefined;
  /** For tool_call tags: whether a finished block is a call or, after all, answer text. */
  readonly classify?: (raw: string) => "tool_call" | "text";
}

/** `<think>` and `<thinking>` blocks: reasoning that local models write into their answer text. */
export const REASONING_TAGS: readonly SplitTag[] = [
  { open: "<think>", close: "</think>", kind: "reasoning" },
  { open: "<thinking>", close: "</thinking>", kind: "reasoning" },
];

/** `<tool_call>` blocks of prompted tool calling. */
export const TOOL_CALL_TAGS: readonly SplitTag[] = [
  { open: "<tool_call>", close: "</tool_call>", kind: "tool_call" },
];

const TAGS: readonly SplitTag[] = [...REASONING_TAGS, ...TOOL_CALL_TAGS];

/** Length of the longest suffix of `text` that is a proper prefix of one of `candidates`. */
function heldSuffix(text: string, candidates: readonly string[]): number {
  let best = 0;
  for (const c of candidates) {
    for (let n = Math.min(c.length - 1, text.length); n > best; n--) {
      if (text.endsWith(c.slice(0, n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}

/**
 * Splits streamed text into answer text, `<think>` reasoning and `<tool_call>` blocks as deltas
 * arrive. A tag split across deltas is held back until it is known, so users never see a partial
 * `<tool_call` flash on screen; tool-call blocks are emitted whole, never as text.
 */
export class TaggedStreamSplitter {
  private buffer = "";
  private inside: SplitTag | undefined;
  private block = "";

  constructor(private readonly tags: readonly SplitTag[] = TAGS) {}

  /** Feeds a delta; returns the pieces that are now certain. */
  push(delta: string): SplitPiece[] {
    this.buffer += delta;
    const out: SplitPiece[] = [];
    while (this.buffer !== "") {
      if (this.inside?.findClose) {
        const tag = this.inside;
        // A close tag needs its last character in the new text: only then is the block rescanned.
        const fresh = this.buffer;
        this.block += fresh;
        this.buffer = "";
        if (!fresh.includes(tag.close.at(-1) as string)) return out;
        const close = tag.findClose?.(this.block);
        if (close === undefined) return out;
        out.push(this.finished(tag, tag.open + this.block.slice(0, close) + tag.close));
        this.buffer = this.block.slice(close + tag.close.length);
        this.block = "";
        this.inside = undefined;
        continue;
      }
      if (this.inside) {
        const tag = this.inside;
        const close = this.buffer.indexOf(tag.close);
        if (close >= 0) {
          const body = this.buffer.slice(0, close);
          this.buffer = this.buffer.slice(close + tag.close.length);
          this.inside = undefined;
          if (tag.kind === "tool_call")
            out.push({ kind: "tool_call", raw: tag.open + this.block + body + tag.close });
          else if (body !== "") out.push({ kind: "reasoning", text: body });
          this.block = "";
          continue;
        }
        const keep = heldSuffix(this.buffer, [tag.close]);
        const ready = this.buffer.slice(0, this.buffer.length - keep);
        if (tag.kind === "tool_call") this.block += ready;
        else if (ready !== "") out.push({ kind: "reasoning", text: ready });
        this.buffer = this.buffer.slice(ready.length);
        return out;
      }
      let first: { at: number; tag: SplitTag } | undefined;
      for (const tag of this.tags) {
        const at = this.buffer.indexOf(tag.open);
        if (at >= 0 && (first === undefined || at < first.at)) first = { at, tag };
      }
      if (first) {
        if (first.at > 0) out.push({ kind: "text", text: this.buffer.slice(0, first.at) });
        this.buffer = this.buffer.slice(first.at + first.tag.open.length);
        this.inside = first.tag;
        continue;
      }
      const keep = heldSuffix(
        this.buffer,
        this.tags.map((t) => t.open),
      );
      const ready = this.buffer.slice(0, this.buffer.length - keep);
      if (ready !== "") out.push({ kind: "text", text: ready });
      this.buffer = this.buffer.slice(ready.length);
      return out;
    }
    return out;
  }

  private finished(tag: SplitTag, raw: string): SplitPiece {
    return tag.classify?.(raw) === "text" ? { kind: "text", text: raw } : { kind: "tool_call", raw };
  }

  /** Ends the stream: held-back text is released, an unclosed tool call is emitted as one. */
  flush(): SplitPiece[] {
    const out: SplitPiece[] = [];
    if (this.inside?.kind === "tool_call")
      out.push(this.finished(this.inside, this.inside.open + this.block + this.buffer));
    else if (this.inside) {
      if (this.buffer !== "") out.push({ kind: "reasoning", text: this.buffer });
    } else if (this.buffer !== "") out.push({ kind: "text", text: this.buffer });
    this.buffer = "";
    this.block = "";
    this.inside = undefined;
    return out;
  }
}
