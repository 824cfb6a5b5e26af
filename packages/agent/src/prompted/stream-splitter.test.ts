import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type SplitPiece, TaggedStreamSplitter } from "./stream-splitter.js";

function run(deltas: readonly string[]): SplitPiece[] {
  const s = new TaggedStreamSplitter();
  const pieces = [...deltas.flatMap((d) => s.push(d)), ...s.flush()];
  // Adjacent text or reasoning pieces are one piece split by delta boundaries.
  const merged: SplitPiece[] = [];
  for (const p of pieces) {
    const last = merged.at(-1);
    if (last && last.kind === p.kind && p.kind !== "tool_call" && last.kind !== "tool_call") {
      merged[merged.length - 1] = { kind: p.kind, text: last.text + (p as { text: string }).text };
    } else merged.push(p);
  }
  return merged;
}

describe("TaggedStreamSplitter", () => {
  it("separates think, text and tool calls", () => {
    expect(run(["<think>plan it</think>Sure. ", '<tool_call>{"name":"a"}</tool_call>', " done"])).toEqual([
      { kind: "reasoning", text: "plan it" },
      { kind: "text", text: "Sure. " },
      { kind: "tool_call", raw: '<tool_call>{"name":"a"}</tool_call>' },
      { kind: "text", text: " done" },
    ]);
  });

  it("holds back a tag split across deltas and never shows partial markup as text", () => {
    const s = new TaggedStreamSplitter();
    expect(s.push("Let me check <tool")).toEqual([{ kind: "text", text: "Let me check " }]);
    expect(s.push("_call>{")).toEqual([]);
    expect(s.push('"name":"a"}</tool_ca')).toEqual([]);
    expect(s.push("ll>ok")).toEqual([
      { kind: "tool_call", raw: '<tool_call>{"name":"a"}</tool_call>' },
      { kind: "text", text: "ok" },
    ]);
  });

  it("releases a held '<' that turned out to be plain text", () => {
    const s = new TaggedStreamSplitter();
    expect(s.push("a <")).toEqual([{ kind: "text", text: "a " }]);
    expect(s.push("b")).toEqual([{ kind: "text", text: "<b" }]);
  });

  it("emits an unclosed tool call at flush", () => {
    const s = new TaggedStreamSplitter();
    s.push('<tool_call>{"name":"a","arguments":{"x":"cut');
    expect(s.flush()).toEqual([{ kind: "tool_call", raw: '<tool_call>{"name":"a","arguments":{"x":"cut' }]);
  });

  it("classifies the same way however the stream is chunked", () => {
    const token = fc.constantFrom(
      "<think>",
      "</think>",
      "<tool_call>",
      "</tool_call>",
      "<",
      ">",
      "tool",
      "think",
      "a",
      " ",
      "{",
      "}",
      "\n",
      "<t",
      "_call>",
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 40 }),
        fc.array(fc.nat({ max: 10 }), { maxLength: 40 }),
        (tokens, cuts) => {
          const text = tokens.join("");
          const deltas: string[] = [];
          let i = 0;
          for (const c of cuts) {
            if (i >= text.length) break;
            deltas.push(text.slice(i, i + c + 1));
            i += c + 1;
          }
          deltas.push(text.slice(i));
          expect(run(deltas)).toEqual(run([text]));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
