// How the loop ends a turn the provider did not finish normally, and how it recovers from a
// stream that breaks after it started: scripted servers speak each of the four wire protocols to
// the real adapters, and a real shell tool shows that no call runs twice.
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  AnthropicAdapter,
  Client,
  GeminiAdapter,
  OpenAIAdapter,
  OpenAICompatibleAdapter,
} from "@attractor/llm";
import {
  callItem,
  chunkFrames,
  frames,
  messageItem,
  type Reply,
  responseObject,
  sse,
  startWireServer,
  streamChunkFrames,
  streamEventsFor,
  streamFrames,
  usage,
  usageMetadata,
  type WireServer,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createAnthropicProfile } from "../src/profiles/anthropic/index.js";
import { createGeminiProfile } from "../src/profiles/gemini/index.js";
import { createOpenAIProfile } from "../src/profiles/openai/index.js";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { NothingToContinueError, Session } from "../src/session/session.js";
import type { SessionEvent } from "../src/types/events.js";
import type { ProviderProfile } from "../src/types/profile.js";
import { SessionState } from "../src/types/session.js";
import { tempDir } from "./support/fixtures.js";

type Fault = "reset" | "error_event" | "malformed_line";
const WHOLE = { mode: "whole" } as const;

/** One wire protocol: client, profile and the replies the tests script. */
interface Protocol {
  readonly id: string;
  client(url: string): Client;
  profile(): ProviderProfile;
  text(text: string, finish?: string): Reply;
  call(command: string): Reply;
  /** A text answer that starts, then breaks with the fault. */
  broken(fault: Fault): Reply;
  /** The provider's raw finish value for an answer cut at the output limit, and for a refusal. */
  readonly length: string;
  readonly refusal: string;
  /** Reads the last message of a request's conversation as text (for the continuation note). */
  lastUserText(body: Record<string, unknown>): string;
}

const sseReply = (f: readonly string[], extra: Partial<Extract<Reply, { kind: "sse" }>> = {}): Reply => ({
  kind: "sse",
  frames: f,
  chunking: WHOLE,
  ...extra,
});

/** Frames cut to the first `keep`, then the fault. */
function fault(f: readonly string[], keep: number, kind: Fault, errorFrame: string): Reply {
  const head = f.slice(0, keep);
  if (kind === "reset") return sseReply(f, { cutAfter: keep });
  if (kind === "error_event") return sseReply([...head, errorFrame]);
  return sseReply([...head, "data: {this is not json\n\n"]);
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are read freely
type Body = any;
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((c: Body) => c.text ?? "").join("")
      : "";

let seq = 0;

/** A Responses stream whose answer is a refusal content part, streamed as refusal deltas. */
function refusalReply(text: string): Reply {
  const id = `msg_${++seq}`;
  const item = {
    type: "message",
    id,
    status: "completed",
    role: "assistant",
    content: [{ type: "refusal", refusal: text }],
  };
  const response = responseObject(`resp_${seq}`, [item], usage(5, 5));
  const ev = (data: Record<string, unknown>) => sse(data, { event: String(data.type) });
  return sseReply([
    ev({ type: "response.created", response: { ...response, status: "in_progress", output: [] } }),
    ev({
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress", content: [] },
    }),
    ev({ type: "response.refusal.delta", item_id: id, output_index: 0, content_index: 0, delta: text }),
    ev({ type: "response.output_item.done", output_index: 0, item }),
    ev({ type: "response.completed", response }),
  ]);
}

const openai: Protocol = {
  id: "openai",
  client: (url) =>
    new Client({ providers: { openai: new OpenAIAdapter({ apiKey: "k", baseUrl: `${url}/v1`, env: {} }) } }),
  profile: () => createOpenAIProfile("gpt-5.2"),
  text: (text, finish) =>
    finish === "refusal"
      ? refusalReply(text)
      : sseReply(
          streamFrames(
            responseObject(
              `resp_${++seq}`,
              [messageItem(`msg_${seq}`, text)],
              usage(5, 5),
              finish === "max_output_tokens"
                ? { status: "incomplete", incomplete_details: { reason: finish } }
                : {},
            ),
          ),
        ),
  call: (command) =>
    sseReply(
      streamFrames(
        responseObject(
          `resp_${++seq}`,
          [callItem(`fc_${seq}`, `call_${seq}`, "shell", JSON.stringify({ command }))],
          usage(5, 5),
        ),
      ),
    ),
  broken: (kind) =>
    fault(
      streamFrames(
        responseObject(
          `resp_${++seq}`,
          [messageItem(`msg_${seq}`, "A partial answer that breaks")],
          usage(5, 5),
        ),
      ),
      5,
      kind,
      sse(
        { type: "error", code: "server_error", message: "The server had an error", sequence_number: 99 },
        { event: "error" },
      ),
    ),
  length: "max_output_tokens",
  refusal: "refusal",
  lastUserText: (body: Body) => textOf(body.input.at(-1)?.content),
};

const anthropic: Protocol = {
  id: "anthropic",
  client: (url) =>
    new Client({ providers: { anthropic: new AnthropicAdapter({ apiKey: "k", baseUrl: url, env: {} }) } }),
  profile: () => createAnthropicProfile("claude-opus-4-6"),
  text: (text, finish = "end_turn") =>
    sseReply(
      frames(streamEventsFor([{ type: "text", text }], finish, { input: 5, output: 5 }, `msg_${++seq}`)),
    ),
  call: (command) =>
    sseReply(
      frames(
        streamEventsFor(
          [{ type: "tool_use", id: `toolu_${++seq}`, name: "shell", input: { command } }],
          "tool_use",
          { input: 5, output: 5 },
        ),
      ),
    ),
  broken: (kind) =>
    fault(
      frames(
        streamEventsFor(
          [{ type: "text", text: "A partial answer that breaks" }],
          "end_turn",
          { input: 5, output: 5 },
          `msg_${++seq}`,
        ),
      ),
      4,
      kind,
      sse({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, { event: "error" }),
    ),
  length: "max_tokens",
  refusal: "refusal",
  lastUserText: (body: Body) => textOf(body.messages.at(-1)?.content),
};

const gemini: Protocol = {
  id: "gemini",
  client: (url) =>
    new Client({ providers: { gemini: new GeminiAdapter({ apiKey: "k", baseUrl: url, env: {} }) } }),
  profile: () => createGeminiProfile("gemini-2.5-flash"),
  text: (text, finish = "STOP") =>
    sseReply(streamChunkFrames([{ text }], usageMetadata(5, 5), { finishReason: finish })),
  call: (command) =>
    sseReply(
      streamChunkFrames([{ functionCall: { name: "shell", args: { command } } }], usageMetadata(5, 5)),
    ),
  broken: (kind) =>
    fault(
      streamChunkFrames([{ text: "A partial answer that breaks" }], usageMetadata(5, 5)),
      2,
      kind,
      sse({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }),
    ),
  length: "MAX_TOKENS",
  refusal: "SAFETY",
  lastUserText: (body: Body) => textOf(body.contents.at(-1)?.parts),
};

const compatible: Protocol = {
  id: "openai-compatible",
  client: (url) =>
    new Client({
      providers: { "openai-compatible": new OpenAICompatibleAdapter({ baseUrl: `${url}/v1`, env: {} }) },
    }),
  profile: () => createOpenAICompatibleProfile("qwen3:8b"),
  text: (text, finish = "stop") => sseReply(chunkFrames({ id: `c${++seq}`, content: text, finish })),
  call: (command) =>
    sseReply(
      chunkFrames({
        id: `c${++seq}`,
        calls: [{ id: `call_${seq}`, name: "shell", args: JSON.stringify({ command }) }],
        finish: "tool_calls",
      }),
    ),
  broken: (kind) =>
    fault(
      chunkFrames({ id: `c${++seq}`, content: "A partial answer that breaks", finish: "stop" }),
      4,
      kind,
      sse({ error: { message: "Upstream provider error", code: 502 } }),
    ),
  length: "length",
  refusal: "content_filter",
  lastUserText: (body: Body) => textOf(body.messages.at(-1)?.content),
};

const PROTOCOLS = [openai, anthropic, gemini, compatible];

let server: WireServer;
let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  server = await startWireServer([]);
  ({ dir, remove } = await tempDir());
});
afterAll(async () => {
  await server.close();
  await remove();
});
beforeEach(() => {
  server.requests.length = 0;
});

function session(p: Protocol, extra: { maxRetries?: number } = {}) {
  const s = new Session({
    profile: p.profile(),
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client: p.client(server.url),
    retry: { maxRetries: extra.maxRetries ?? 2, baseDelayMs: 1, jitter: false },
  });
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  return { s, events };
}

const kinds = (events: readonly SessionEvent[], kind: SessionEvent["kind"]) =>
  events.filter((e) => e.kind === kind);
const endOf = (events: readonly SessionEvent[]) => {
  const end = kinds(events, "processing_end").at(-1);
  if (end?.kind !== "processing_end") throw new Error("no processing_end");
  return end.data;
};

for (const p of PROTOCOLS) {
  describe(`${p.id}: a stream that breaks after it started`, () => {
    for (const kind of ["reset", "error_event", "malformed_line"] as const) {
      it(`retries the turn after a ${kind}, drops the partial answer and runs no tool twice`, async () => {
        const log = `ran-${p.id}-${kind}.log`;
        server.setHandler([p.call(`echo once >> ${log}`), p.broken(kind), p.text("All done.")]);
        const { s, events } = session(p);
        await s.submit("Run the command, then report.");
        expect(endOf(events).reason).toBe("completed");
        expect(await readFile(path.join(dir, log), "utf8")).toBe("once\n");
        const retries = kinds(events, "retry");
        expect(retries).toHaveLength(1);
        expect(retries[0]!.data).toMatchObject({ attempt: 1, discardPartial: true });
        // The same request went again: nothing of the broken answer is in it.
        expect(server.requests).toHaveLength(3);
        expect(server.requests[2]!.body).toEqual(server.requests[1]!.body);
        expect(
          s.history.filter((t) => t.kind === "assistant").map((t) => t.kind === "assistant" && t.content),
        ).toEqual(["", "All done."]);
        await s.close();
      });
    }
  });

  describe(`${p.id}: abnormal finishes`, () => {
    it("continues an answer cut at the output limit", async () => {
      server.setHandler([p.text("The first half,", p.length), p.text(" and the second half.")]);
      const { s, events } = session(p);
      await s.submit("Write it.");
      expect(endOf(events).reason).toBe("completed");
      expect(p.lastUserText(server.requests[1]!.body)).toMatch(/cut off at the output limit/);
      expect(kinds(events, "warning").map((e) => e.kind === "warning" && e.data.code)).toContain("continued");
      await s.close();
    });

    it("ends with an error when the answer stays cut", async () => {
      server.setHandler([p.text("a", p.length), p.text("b", p.length), p.text("c", p.length)]);
      const { s, events } = session(p);
      await s.submit("Write it.");
      expect(endOf(events).reason).toBe("error");
      const error = kinds(events, "error").at(-1);
      expect(error?.data).toMatchObject({ fatal: false, finishReason: p.length });
      expect(error?.kind === "error" && error.data.message).toMatch(/cut at the output limit/);
      expect(s.state).toBe(SessionState.IDLE);
      await s.close();
    });

    it("reports a refusal as an error with the provider's reason, not as success", async () => {
      server.setHandler([p.text("I can't help with that.", p.refusal)]);
      const { s, events } = session(p);
      await s.submit("Do the forbidden thing.");
      expect(endOf(events).reason).toBe("error");
      expect(kinds(events, "error").at(-1)?.data).toMatchObject({ fatal: false, finishReason: p.refusal });
      await s.close();
    });
  });
}

describe("gemini: malformed function calls", () => {
  const malformed: Reply = sseReply([
    sse({
      candidates: [
        { finishReason: "MALFORMED_FUNCTION_CALL", index: 0, finishMessage: "Malformed function call" },
      ],
      usageMetadata: usageMetadata(5, 0),
      modelVersion: "gemini-2.5-flash",
      responseId: "r-bad",
    }),
  ]);

  it("asks once more with a note, then goes on", async () => {
    server.setHandler([malformed, gemini.text("Fixed.")]);
    const { s, events } = session(gemini);
    await s.submit("Call a tool.");
    expect(endOf(events).reason).toBe("completed");
    expect(gemini.lastUserText(server.requests[1]!.body)).toMatch(/could not be parsed/);
    // The empty malformed answer is not in the history.
    expect(s.history.filter((t) => t.kind === "assistant")).toHaveLength(1);
    await s.close();
  });

  it("ends with an error when it happens twice", async () => {
    server.setHandler([malformed, malformed]);
    const { s, events } = session(gemini);
    await s.submit("Call a tool.");
    expect(endOf(events).reason).toBe("error");
    expect(kinds(events, "error").at(-1)?.data).toMatchObject({ finishReason: "MALFORMED_FUNCTION_CALL" });
    await s.close();
  });
});

describe("anthropic: pause_turn", () => {
  it("sends the paused turn back so the model goes on", async () => {
    server.setHandler([anthropic.text("Searching…", "pause_turn"), anthropic.text("Found it.")]);
    const { s, events } = session(anthropic);
    await s.submit("Search.");
    expect(endOf(events).reason).toBe("completed");
    const second = server.requests[1]!.body;
    expect(second.messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(second.messages.at(-1))).toContain("Searching");
    await s.close();
  });
});

describe("recovery for embedders", () => {
  const overloaded: Reply = {
    kind: "json",
    status: 503,
    body: { error: { type: "overloaded_error", message: "Overloaded" } },
  };

  it("reports each retry as an event, and continue() retries the turn without a new user message", async () => {
    server.setHandler([overloaded, overloaded, overloaded, anthropic.text("Back.")]);
    const { s, events } = session(anthropic);
    await s.submit("Hello?");
    expect(endOf(events).reason).toBe("error");
    expect(
      kinds(events, "retry").map((e) => e.kind === "retry" && [e.data.attempt, e.data.discardPartial]),
    ).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(s.state).toBe(SessionState.IDLE);
    await s.continue();
    expect(endOf(events).reason).toBe("completed");
    expect(kinds(events, "user_input")).toHaveLength(1);
    expect(server.requests.at(-1)!.body.messages).toEqual(server.requests[0]!.body.messages);
    await expect(s.continue()).rejects.toBeInstanceOf(NothingToContinueError);
    await s.close();
  });

  it("continue() after a stream that kept breaking mid-answer beyond its retries", async () => {
    server.setHandler([
      openai.broken("reset"),
      openai.broken("error_event"),
      openai.broken("malformed_line"),
      openai.text("Complete at last."),
    ]);
    const { s, events } = session(openai);
    await s.submit("Answer.");
    expect(endOf(events).reason).toBe("error");
    expect(kinds(events, "retry").map((e) => e.kind === "retry" && e.data.discardPartial)).toEqual([
      true,
      true,
    ]);
    expect(kinds(events, "error").at(-1)?.data).toMatchObject({ fatal: false });
    expect(s.history.filter((t) => t.kind === "assistant")).toHaveLength(0);
    await s.continue();
    expect(endOf(events).reason).toBe("completed");
    expect(s.history.at(-1)).toMatchObject({ kind: "assistant", content: "Complete at last." });
    await s.close();
  });

  it("leaves the session usable after a context overflow compaction cannot fix", async () => {
    server.setHandler([
      {
        kind: "json",
        status: 400,
        body: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "prompt is too long: 250000 tokens > 200000 maximum",
          },
        },
      },
      anthropic.text("Short answer."),
    ]);
    const { s, events } = session(anthropic);
    await s.submit("Hello?");
    expect(endOf(events).reason).toBe("error");
    expect(kinds(events, "warning").map((e) => e.kind === "warning" && e.data.code)).toContain(
      "context_length",
    );
    expect(kinds(events, "error").at(-1)?.data).toMatchObject({
      fatal: false,
      errorName: "ContextLengthError",
    });
    expect(s.state).toBe(SessionState.IDLE);
    await s.submit("Shorter, then.");
    expect(endOf(events).reason).toBe("completed");
    await s.close();
  });
});
