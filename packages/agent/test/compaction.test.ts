import { ContextLengthError, type Message, type Request } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pruneToolOutputs } from "../src/compaction/prune.js";
import { SUMMARIZER_PROMPT } from "../src/compaction/summary.js";
import { Session } from "../src/session/session.js";
import { nodeEnvironment, type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import type { SessionConfig } from "../src/types/config.js";
import type { SessionEvent } from "../src/types/events.js";
import type { RegisteredTool } from "../src/types/tool.js";
import type { SummaryTurn, Turn } from "../src/types/turn.js";
import { collect, fnTool, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const textOf = (m: Message): string => m.content.map((p) => (p.kind === "text" ? p.text : "")).join("");
const requestText = (r: Request): string =>
  r.messages
    .map((m) =>
      m.content
        .map((p) =>
          p.kind === "text"
            ? p.text
            : p.kind === "tool_result"
              ? String(p.toolResult.content)
              : p.kind === "tool_call"
                ? JSON.stringify(p.toolCall.arguments)
                : "",
        )
        .join(""),
    )
    .join("\n");
const isSummaryCall = (r: Request) => textOf(r.messages[0]!) === SUMMARIZER_PROMPT;
/** What a server would count for the request: about a token per four characters. */
const tokensOf = (r: Request) =>
  Math.ceil((requestText(r).length + JSON.stringify(r.tools ?? []).length) / 4);

const SUMMARY = [
  "## Decisions",
  "- Read the chunks in order.",
  "## Discoveries",
  "- Every chunk holds filler text.",
  "## Files touched",
  "- none",
  "## Work done",
  "- Read the first chunks.",
  "## Next steps",
  "- Read the remaining chunks, then write notes.md.",
].join("\n");

const readChunk: RegisteredTool = {
  ...fnTool(
    "read_chunk",
    async (args) => `chunk ${String(args.n)}: ${"lorem ipsum dolor sit amet ".repeat(60)}`,
    {
      n: { type: "number" },
    },
  ),
  readOnly: true,
};
const writeNote = fnTool("write_note", async (args) => `wrote ${String(args.file_path)}`, {
  file_path: { type: "string" },
  text: { type: "string" },
});

function makeSession(
  script: (request: Request) => ScriptedReply,
  opts: { contextWindowSize: number; config?: Partial<SessionConfig>; history?: readonly Turn[] },
) {
  const client = scriptedClient((request) => script(request));
  const session = new Session({
    profile: testProfile([readChunk, writeNote], { contextWindowSize: opts.contextWindowSize }),
    environment: nodeEnvironment(dir),
    client,
    ...(opts.config && { config: opts.config }),
    ...(opts.history && { history: opts.history }),
  });
  return { session, client, events: collect(session.events()) };
}

const ofKind = <K extends SessionEvent["kind"]>(events: readonly SessionEvent[], kind: K) =>
  events.filter((e): e is Extract<SessionEvent, { kind: K }> => e.kind === kind);

describe("context compaction", () => {
  it("compacts a long session at the threshold, keeps the task and every user instruction, and finishes", async () => {
    const task = "Read chunks 1 to 14 with read_chunk, then write a summary to notes.md.";
    const steer = "Keep the notes under 100 words.";
    const followUp = "Now read chunks 15 to 20 as well and add them to the notes.";
    let phase = 1;
    const steps = [0, 0, 0];
    const summaryCalls: Request[] = [];
    const thoughts = "I am reading the chunks one at a time and keeping track of what each contains. ".repeat(
      14,
    );
    const { session, client, events } = makeSession(
      (request) => {
        if (isSummaryCall(request)) {
          summaryCalls.push(request);
          return { text: SUMMARY, usage: { inputTokens: tokensOf(request), outputTokens: 60 } };
        }
        const usage = { inputTokens: tokensOf(request), outputTokens: 80 };
        const step = ++steps[phase]!;
        if (phase === 1 && step === 4) session.steer(steer);
        const chunks = phase === 1 ? 14 : 6;
        if (step <= chunks) {
          const n = phase === 1 ? step : 14 + step;
          return { text: thoughts, toolCalls: [{ name: "read_chunk", args: { n } }], usage };
        }
        if (step === chunks + 1)
          return { toolCalls: [{ name: "write_note", args: { file_path: "notes.md", text: "..." } }], usage };
        return { text: "All chunks are read and notes.md is written.", usage };
      },
      { contextWindowSize: 6_000 },
    );
    await session.submit(task);
    phase = 2;
    const phase2From = client.requests.length;
    await session.submit(followUp);
    await session.close();
    const all = await events;

    const starts = ofKind(all, "compaction_start");
    const endsOf = ofKind(all, "compaction_end");
    expect(starts.length).toBeGreaterThan(0);
    expect(endsOf).toHaveLength(starts.length);
    expect(starts.every((e) => e.data.reason === "threshold")).toBe(true);
    for (const [i, end] of endsOf.entries()) {
      expect(end.data.tokensBefore).toBe(starts[i]!.data.tokensBefore);
      expect(end.data.tokensBefore).toBeGreaterThanOrEqual(6_000 * 0.8);
      expect(end.data.tokensAfter).toBeLessThan(end.data.tokensBefore);
    }
    expect(endsOf.some((e) => e.data.summarized)).toBe(true);
    expect(endsOf.some((e) => e.data.prunedToolOutputs > 0)).toBe(true);

    // The summary calls: no tools, the older conversation as a transcript.
    expect(summaryCalls.length).toBe(endsOf.filter((e) => e.data.summarized).length);
    for (const call of summaryCalls) {
      expect(call.tools).toBeUndefined();
      expect(textOf(call.messages[1]!)).toContain("<transcript>");
    }

    // Every model call after the first compaction still carries the task and the instructions verbatim.
    const work_ = client.requests.filter((r) => !isSummaryCall(r));
    const firstCompacted = work_.findIndex((r) =>
      r.messages.some((m) => textOf(m).includes("<conversation_summary>")),
    );
    expect(firstCompacted).toBeGreaterThan(0);
    for (const r of work_.slice(firstCompacted)) {
      const text = requestText(r);
      expect(text).toContain(task);
      expect(text).toContain(steer);
      expect(tokensOf(r)).toBeLessThan(6_000);
    }
    const phase2 = client.requests.slice(phase2From).filter((r) => !isSummaryCall(r));
    expect(phase2.length).toBe(8);
    for (const r of phase2) expect(requestText(r)).toContain(followUp);
    // The follow-up itself went into a later summary, verbatim, and still reached the model.
    expect(summaryCalls.some((c) => textOf(c.messages[1]!).includes(followUp))).toBe(true);

    const ends = ofKind(all, "processing_end");
    expect(ends.map((e) => e.data.reason)).toEqual(["completed", "completed"]);
    expect(ofKind(all, "error")).toEqual([]);
    expect(session.history[0]?.kind).toBe("summary");
    const summary = session.history[0] as SummaryTurn;
    expect(summary.task).toBe(task);
    expect(summary.instructions).toContain(steer);
    expect(summary.summary).toBe(SUMMARY);
    expect(session.history.at(-1)).toMatchObject({
      kind: "assistant",
      content: expect.stringContaining("All chunks"),
    });
    // Turn limits keep counting the responses the summary replaced.
    expect(session.turnCount).toBe(work_.length);
  });

  it("does not compact at the threshold when autoCompact is off", async () => {
    let n = 0;
    const { session, events } = makeSession(
      (request) =>
        ++n <= 6
          ? {
              toolCalls: [{ name: "read_chunk", args: { n } }],
              usage: { inputTokens: tokensOf(request), outputTokens: 10 },
            }
          : { text: "done" },
      { contextWindowSize: 2_000, config: { autoCompact: false } },
    );
    await session.submit("read");
    await session.close();
    const all = await events;
    expect(ofKind(all, "compaction_start")).toEqual([]);
    expect(ofKind(all, "warning").map((w) => w.data.code)).toContain("context_usage");
  });

  it("compacts after ContextLengthError and retries the call once, successfully", async () => {
    let work = 0;
    const { session, client, events } = makeSession(
      (request) => {
        if (isSummaryCall(request)) return { text: SUMMARY };
        work++;
        if (work <= 5) return { toolCalls: [{ name: "read_chunk", args: { n: work } }] };
        // The server's real window is smaller than the profile thinks: it rejects the long history once.
        if (work === 6)
          return { error: new ContextLengthError("maximum context length exceeded", { provider: "p" }) };
        return { text: "Done after compaction." };
      },
      { contextWindowSize: 200_000 },
    );
    await session.submit("Read chunks 1 to 5.");
    await session.close();
    const all = await events;
    const start = ofKind(all, "compaction_start");
    expect(start.map((e) => e.data.reason)).toEqual(["context_length"]);
    const end = ofKind(all, "compaction_end")[0]!;
    expect(end.data.summarized).toBe(true);
    expect(end.data.prunedToolOutputs).toBeGreaterThan(0);
    expect(ofKind(all, "error")).toEqual([]);
    expect(ofKind(all, "warning")).toEqual([]);
    expect(ofKind(all, "processing_end")[0]?.data.reason).toBe("completed");
    const retry = client.requests.at(-1)!;
    expect(requestText(retry)).toContain("<conversation_summary>");
    expect(requestText(retry)).toContain("Read chunks 1 to 5.");
    expect(tokensOf(retry)).toBeLessThan(tokensOf(client.requests.filter((r) => !isSummaryCall(r))[5]!));
    expect(session.history.at(-1)).toMatchObject({ kind: "assistant", content: "Done after compaction." });
  });

  it("ends the input, session still usable, when compaction cannot make room", async () => {
    const { session, events } = makeSession(
      () => ({ error: new ContextLengthError("prompt is too long", { provider: "p" }) }),
      { contextWindowSize: 200_000 },
    );
    await session.submit("x".repeat(5_000));
    expect(session.state).toBe("idle");
    await session.close();
    const all = await events;
    const kinds = all.map((e) => e.kind);
    expect(kinds.slice(kinds.indexOf("compaction_start"))).toEqual([
      "compaction_start",
      "compaction_end",
      "warning",
      "error",
      "processing_end",
      "session_end",
    ]);
    expect(ofKind(all, "compaction_end")[0]?.data).toMatchObject({ summarized: false, prunedToolOutputs: 0 });
    expect(ofKind(all, "warning")[0]?.data.code).toBe("context_length");
    expect(ofKind(all, "error")[0]?.data.fatal).toBe(false);
  });

  it("ends the input, session still usable, when the retry after compaction overflows again", async () => {
    let work = 0;
    const { session, events } = makeSession(
      (request) => {
        if (isSummaryCall(request)) return { text: SUMMARY };
        work++;
        if (work <= 4) return { toolCalls: [{ name: "read_chunk", args: { n: work } }] };
        return { error: new ContextLengthError("context length exceeded", { provider: "p" }) };
      },
      { contextWindowSize: 200_000 },
    );
    await session.submit("Read four chunks.");
    expect(session.state).toBe("idle");
    await session.close();
    const all = await events;
    expect(ofKind(all, "compaction_start")).toHaveLength(1);
    expect(work).toBe(6);
    expect(ofKind(all, "error")[0]?.data.fatal).toBe(false);
  });

  it("compact(focus) summarises on demand, and the compacted history rebuilds a session", async () => {
    let work = 0;
    const summaryCalls: Request[] = [];
    const { session, events } = makeSession(
      (request) => {
        if (isSummaryCall(request)) {
          summaryCalls.push(request);
          return { text: SUMMARY, usage: { inputTokens: 500, outputTokens: 50 } };
        }
        work++;
        return work <= 3
          ? {
              toolCalls: [
                { name: "read_chunk", args: { n: work } },
                ...(work === 2 ? [{ name: "write_note", args: { file_path: "notes.md", text: "a" } }] : []),
              ],
            }
          : { text: `answer ${work}` };
      },
      { contextWindowSize: 200_000 },
    );
    await session.submit("Read three chunks and take notes.");
    await session.submit("Then tell me what chunk 2 said.");
    const before = session.turnCount;
    const usageBefore = session.usage.inputTokens;
    await session.compact("what chunk 2 said");
    await session.close();
    const all = await events;

    expect(ofKind(all, "compaction_start").map((e) => e.data.reason)).toEqual(["manual"]);
    expect(ofKind(all, "compaction_end")[0]?.data.summarized).toBe(true);
    expect(textOf(summaryCalls[0]!.messages[1]!)).toContain("Pay particular attention to: what chunk 2 said");
    expect(session.usage.inputTokens).toBe(usageBefore + 500);
    expect(session.turnCount).toBe(before);
    const summary = session.history[0] as SummaryTurn;
    expect(summary).toMatchObject({ kind: "summary", task: "Read three chunks and take notes." });
    expect(summary.filesTouched).toEqual(["notes.md"]);

    const stored: Turn[] = JSON.parse(JSON.stringify(session.history));
    const resumed = makeSession(() => ({ text: "Chunk 2 held filler text." }), {
      contextWindowSize: 200_000,
      history: stored,
    });
    await resumed.session.submit("Remind me of the task.");
    await resumed.session.close();
    const first = resumed.client.requests[0]!;
    expect(first.messages[1]?.role).toBe("user");
    expect(textOf(first.messages[1]!)).toContain(
      "## Original task (verbatim)\nRead three chunks and take notes.",
    );
    expect(textOf(first.messages[1]!)).toContain(SUMMARY);
    expect(resumed.session.turnCount).toBe(before + 1);
  });

  it("compact() on a closed session rejects", async () => {
    const { session } = makeSession(() => ({ text: "hi" }), { contextWindowSize: 1_000 });
    await session.close();
    await expect(session.compact()).rejects.toThrow(/closed/);
  });
});

describe("pruneToolOutputs", () => {
  const results = (i: number, content: string): Turn => ({
    kind: "tool_results",
    results: [{ toolCallId: `c${i}`, toolName: "read_chunk", content, isError: false }],
    timestamp: "t",
  });

  it("replaces old outputs with a marker and keeps the last rounds and short outputs whole", () => {
    const long = "x".repeat(1_000);
    const turns = [
      results(1, long),
      results(2, "short"),
      results(3, long),
      results(4, long),
      results(5, long),
    ];
    const { turns: pruned, pruned: count } = pruneToolOutputs(turns, 3);
    expect(count).toBe(1);
    const contents = pruned.map((t) => (t.kind === "tool_results" ? t.results[0]!.content : ""));
    expect(contents[0]).toMatch(/^\[Output of this read_chunk call \(1000 characters\) was removed/);
    expect(contents.slice(1)).toEqual(["short", long, long, long]);
    expect(pruneToolOutputs(pruned, 3).pruned).toBe(0);
    expect(pruneToolOutputs(turns, 5).turns).toBe(turns);
  });
});
