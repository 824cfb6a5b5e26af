import { describe, expect, it } from "vitest";
import { Client } from "../src/client.js";
import {
  AbortError,
  AuthenticationError,
  ConfigurationError,
  NoObjectGeneratedError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
} from "../src/errors.js";
import {
  type GenerateStreamEvent,
  generate,
  generateObject,
  type StepResult,
  stream,
  tool,
} from "../src/generate.js";
import { type Request, userMessage } from "../src/types/index.js";
import {
  type Script,
  ScriptedAdapter,
  textResponse,
  toolCallResponse,
  toolResultsIn,
  usage,
} from "./support/scripted-adapter.js";

const setup = (script: Script, name = "scripted") => {
  const adapter = new ScriptedAdapter(script, { name });
  return { adapter, client: new Client({ providers: { [name]: adapter } }) };
};

const noSleep = { sleep: async () => {} };

const objectSchema = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
});

/** Two tools that each wait until the other has started: they finish only when run concurrently. */
function rendezvousTools() {
  const started: string[] = [];
  let release!: () => void;
  const bothStarted = new Promise<void>((r) => {
    release = r;
  });
  const make = (name: string) =>
    tool({
      name,
      description: name,
      parameters: objectSchema({ city: { type: "string" } }),
      execute: async (args: Record<string, unknown>) => {
        started.push(name);
        if (started.length === 2) release();
        const guard = new Promise((_, reject) =>
          setTimeout(() => reject(new Error("ran sequentially")), 2000),
        );
        await Promise.race([bothStarted, guard]);
        return `${name}:${String(args.city)}`;
      },
    });
  return { tools: [make("weather"), make("time")], started };
}

describe("generate: input", () => {
  it("sends a prompt as a user message after the system message", async () => {
    const { adapter, client } = setup([{ kind: "response", response: textResponse("hello") }]);
    const result = await generate({ client, model: "m", prompt: "hi", system: "be brief", temperature: 0.2 });
    expect(result.text).toBe("hello");
    expect(result.steps).toHaveLength(1);
    const sent = adapter.requests[0]!;
    expect(sent.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(sent.temperature).toBe(0.2);
    expect(sent.model).toBe("m");
  });

  it("sends messages as given", async () => {
    const { adapter, client } = setup([{ kind: "response", response: textResponse("ok") }]);
    const messages = [userMessage("one"), { role: "assistant" as const, content: [] }, userMessage("two")];
    await generate({ client, model: "m", messages });
    expect(adapter.requests[0]!.messages).toEqual(messages);
  });

  it("rejects prompt and messages together, and neither, before calling the model", async () => {
    const { adapter, client } = setup([]);
    await expect(generate({ client, model: "m", prompt: "a", messages: [userMessage("b")] })).rejects.toThrow(
      /either prompt or messages/,
    );
    await expect(generate({ client, model: "m" })).rejects.toBeInstanceOf(ConfigurationError);
    expect(adapter.calls).toHaveLength(0);
  });

  it("rejects an invalid tool name at definition", () => {
    expect(() => tool({ name: "9lives", description: "", parameters: { type: "object" } })).toThrow(
      ConfigurationError,
    );
    expect(() => tool({ name: "a".repeat(65), description: "", parameters: { type: "object" } })).toThrow(
      /64/,
    );
    expect(() => tool({ name: "has space", description: "", parameters: { type: "object" } })).toThrow();
    expect(() => tool({ name: "ok_name-2", description: "", parameters: { type: "string" } })).toThrow(
      /object/,
    );
    expect(tool({ name: "ok_name-2", description: "", parameters: { type: "object" } }).name).toBe(
      "ok_name-2",
    );
  });
});

describe("generate: tool loop", () => {
  it("runs parallel calls concurrently and sends all results in one continuation, in call order", async () => {
    const { tools, started } = rendezvousTools();
    const { adapter, client } = setup((req, i) =>
      i === 0
        ? {
            kind: "response",
            response: toolCallResponse([
              { id: "c1", name: "weather", arguments: { city: "SF" } },
              { id: "c2", name: "time", arguments: { city: "NY" } },
            ]),
          }
        : { kind: "response", response: textResponse(`done with ${toolResultsIn(req).length}`) },
    );
    const result = await generate({ client, model: "m", prompt: "go", tools, maxToolRounds: 3 });
    expect(started.sort()).toEqual(["time", "weather"]);
    expect(adapter.calls).toHaveLength(2);
    const continuation = adapter.requests[1]!.messages;
    expect(continuation.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(toolResultsIn(adapter.requests[1]!).map((r) => [r.toolCallId, r.content, r.isError])).toEqual([
      ["c1", "weather:SF", false],
      ["c2", "time:NY", false],
    ]);
    expect(result.text).toBe("done with 2");
    expect(result.steps.map((s) => s.toolResults.length)).toEqual([2, 0]);
    expect(result.steps[0]!.toolCalls.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(adapter.requests[0]!.tools?.map((t) => t.name)).toEqual(["weather", "time"]);
    expect(adapter.requests[0]!.tools?.[0]).not.toHaveProperty("execute");
  });

  it("turns unknown tools, thrown errors and invalid arguments into error results, and keeps going", async () => {
    const calc = tool({
      name: "calc",
      description: "adds",
      parameters: objectSchema({ a: { type: "number" }, b: { type: "number" } }),
      execute: (args: { a: number; b: number }) => {
        if (args.a < 0) throw new Error("negative input");
        return { sum: args.a + args.b };
      },
    });
    const { adapter, client } = setup((_req, i) =>
      i === 0
        ? {
            kind: "response",
            response: toolCallResponse([
              { id: "u", name: "nope", arguments: {} },
              { id: "t", name: "calc", arguments: { a: -1, b: 2 } },
              { id: "v", name: "calc", arguments: { a: "one", b: 2 } },
              { id: "j", name: "calc", arguments: {}, rawArguments: "{not json" },
              { id: "ok", name: "calc", arguments: { a: 1, b: 2 } },
            ]),
          }
        : { kind: "response", response: textResponse("fine") },
    );
    const result = await generate({ client, model: "m", prompt: "go", tools: [calc] });
    const results = toolResultsIn(adapter.requests[1]!);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["u", true],
      ["t", true],
      ["v", true],
      ["j", true],
      ["ok", false],
    ]);
    expect(results[0]!.content).toBe("Unknown tool: nope");
    expect(results[1]!.content).toMatch(/negative input/);
    expect(results[2]!.content).toMatch(/Invalid arguments for tool calc:.*a must be number/);
    expect(results[3]!.content).toMatch(/Invalid arguments for tool calc: not valid JSON/);
    expect(results[4]!.content).toEqual({ sum: 3 });
    expect(result.text).toBe("fine");
  });

  it("respects maxToolRounds: at most rounds + 1 model calls, the last calls returned unexecuted", async () => {
    let runs = 0;
    const echo = tool({
      name: "echo",
      description: "",
      parameters: { type: "object" },
      execute: () => `run ${++runs}`,
    });
    const { adapter, client } = setup(() => ({
      kind: "response",
      response: toolCallResponse([{ name: "echo" }]),
    }));
    const result = await generate({ client, model: "m", prompt: "loop", tools: [echo], maxToolRounds: 3 });
    expect(adapter.calls).toHaveLength(4);
    expect(runs).toBe(3);
    expect(result.steps).toHaveLength(4);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolResults).toEqual([]);
    expect(result.finishReason.reason).toBe("tool_calls");
  });

  it("runs no tools at all when maxToolRounds is 0", async () => {
    let runs = 0;
    const echo = tool({
      name: "echo",
      description: "",
      parameters: { type: "object" },
      execute: () => ++runs,
    });
    const { adapter, client } = setup(() => ({
      kind: "response",
      response: toolCallResponse([{ name: "echo" }]),
    }));
    const result = await generate({ client, model: "m", prompt: "x", tools: [echo], maxToolRounds: 0 });
    expect(adapter.calls).toHaveLength(1);
    expect(runs).toBe(0);
    expect(result.toolCalls.map((c) => c.name)).toEqual(["echo"]);
  });

  it("returns passive tool calls to the caller without executing anything", async () => {
    const { adapter, client } = setup(() => ({
      kind: "response",
      response: toolCallResponse([{ name: "ask_user", arguments: { q: "?" } }]),
    }));
    const passive = tool({ name: "ask_user", description: "", parameters: { type: "object" } });
    const result = await generate({ client, model: "m", prompt: "x", tools: [passive], maxToolRounds: 5 });
    expect(adapter.calls).toHaveLength(1);
    expect(result.toolCalls[0]?.arguments).toEqual({ q: "?" });
  });

  it("returns tool calls unexecuted when the caller gave no tools", async () => {
    const { adapter, client } = setup(() => ({
      kind: "response",
      response: toolCallResponse([{ name: "ghost" }]),
    }));
    const result = await generate({ client, model: "m", prompt: "x" });
    expect(adapter.calls).toHaveLength(1);
    expect(result.toolCalls.map((c) => c.name)).toEqual(["ghost"]);
    expect(result.toolResults).toEqual([]);
  });

  it("stops when stopWhen says so, and sums usage over the steps", async () => {
    const echo = tool({ name: "echo", description: "", parameters: { type: "object" }, execute: () => "x" });
    const { adapter, client } = setup((_r, i) => ({
      kind: "response",
      response: toolCallResponse([{ name: "echo" }], {
        usage: usage(100 * (i + 1), 10, { cacheReadTokens: 5 }),
      }),
    }));
    const seen: number[] = [];
    const result = await generate({
      client,
      model: "m",
      prompt: "x",
      tools: [echo],
      maxToolRounds: 10,
      stopWhen: (steps: readonly StepResult[]) => {
        seen.push(steps.length);
        return steps.length === 3;
      },
    });
    expect(adapter.calls).toHaveLength(3);
    expect(seen).toEqual([1, 2, 3]);
    expect(result.usage).toMatchObject({ inputTokens: 300, outputTokens: 10 });
    expect(result.totalUsage).toEqual({
      inputTokens: 600,
      outputTokens: 30,
      totalTokens: 630,
      cacheReadTokens: 15,
    });
    expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(3);
  });
});

describe("generate: retries, abort and timeouts", () => {
  it("retries a rate-limited step and raises a 401 at once", async () => {
    const limited = new RateLimitError("slow", { provider: "scripted", statusCode: 429 });
    const { adapter, client } = setup([
      { kind: "error", error: limited },
      { kind: "error", error: new ServerError("oops", { provider: "scripted", statusCode: 500 }) },
      { kind: "response", response: textResponse("finally") },
    ]);
    expect((await generate({ client, model: "m", prompt: "x", retry: noSleep })).text).toBe("finally");
    expect(adapter.calls).toHaveLength(3);

    const denied = setup([
      { kind: "error", error: new AuthenticationError("bad key", { provider: "s", statusCode: 401 }) },
    ]);
    await expect(
      generate({ client: denied.client, model: "m", prompt: "x", retry: noSleep }),
    ).rejects.toBeInstanceOf(AuthenticationError);
    expect(denied.adapter.calls).toHaveLength(1);

    const none = setup([{ kind: "error", error: limited }]);
    await expect(
      generate({ client: none.client, model: "m", prompt: "x", maxRetries: 0, retry: noSleep }),
    ).rejects.toBe(limited);
  });

  it("aborts generate while the model hangs, and before it starts", async () => {
    const { client } = setup([{ kind: "hang" }]);
    const controller = new AbortController();
    const pending = generate({ client, model: "m", prompt: "x", signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    await expect(
      generate({ client, model: "m", prompt: "x", signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it("aborts a tool that ignores the signal, and hands the signal to tools", async () => {
    let toolSignal: AbortSignal | undefined;
    const slow = tool({
      name: "slow",
      description: "",
      parameters: { type: "object" },
      execute: (_a, ctx) => {
        toolSignal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const { client } = setup([{ kind: "response", response: toolCallResponse([{ name: "slow" }]) }]);
    const controller = new AbortController();
    const pending = generate({ client, model: "m", prompt: "x", tools: [slow], signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(toolSignal?.aborted).toBe(true);
  });

  it("fails with RequestTimeoutError on the per-step and the total timeout", async () => {
    const perStep = setup([{ kind: "hang" }]);
    const err = await generate({
      client: perStep.client,
      model: "m",
      prompt: "x",
      timeout: { perStepMs: 20 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as Error).message).toMatch(/step 1/);

    const echo = tool({ name: "echo", description: "", parameters: { type: "object" }, execute: () => "x" });
    const total = setup((_r, i) =>
      i === 0 ? { kind: "response", response: toolCallResponse([{ name: "echo" }]) } : { kind: "hang" },
    );
    const err2 = await generate({
      client: total.client,
      model: "m",
      prompt: "x",
      tools: [echo],
      timeout: 30,
    }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(RequestTimeoutError);
    expect((err2 as Error).message).toMatch(/generation/);
    expect(total.adapter.calls).toHaveLength(2);
  });
});

describe("stream (high level)", () => {
  it("streams text deltas whose concatenation is the final response text", async () => {
    const { adapter, client } = setup([
      { kind: "response", response: textResponse("Hello, streaming world") },
    ]);
    const result = stream({ client, model: "m", prompt: "x" });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello, streaming world");
    expect((await result.response()).message.content).toEqual([
      { kind: "text", text: "Hello, streaming world" },
    ]);
    expect(adapter.calls[0]?.method).toBe("stream");
  });

  it("runs the tool loop with a step_finish marker between steps", async () => {
    const { tools } = rendezvousTools();
    const { client } = setup((req, i) =>
      i === 0
        ? {
            kind: "response",
            response: toolCallResponse([
              { name: "weather", arguments: { city: "SF" } },
              { name: "time", arguments: { city: "NY" } },
            ]),
          }
        : { kind: "response", response: textResponse(`results: ${toolResultsIn(req).length}`) },
    );
    const result = stream({ client, model: "m", prompt: "x", tools });
    const types: GenerateStreamEvent["type"][] = [];
    let partialAfterFirstDelta: string | undefined;
    for await (const event of result) {
      types.push(event.type);
      if (event.type === "text_delta" && partialAfterFirstDelta === undefined) {
        partialAfterFirstDelta = JSON.stringify(result.partialResponse.message.content);
      }
    }
    expect(types.filter((t) => t === "step_finish")).toHaveLength(1);
    expect(types.filter((t) => t === "finish")).toHaveLength(2);
    expect(types.indexOf("step_finish")).toBe(types.indexOf("finish") + 1);
    expect(partialAfterFirstDelta).toBe(JSON.stringify([{ kind: "text", text: "resu" }]));
    const final = await result.result();
    expect(final.steps).toHaveLength(2);
    expect(final.text).toBe("results: 2");
  });

  it("drives itself when only result() is awaited, and can be iterated once", async () => {
    const { client } = setup([{ kind: "response", response: textResponse("quiet") }]);
    const result = stream({ client, model: "m", prompt: "x" });
    expect((await result.result()).text).toBe("quiet");
    expect(() => result[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it("retries the connection but not a stream that broke after its first event", async () => {
    const reset = new ServerError("reset", { provider: "scripted", statusCode: 503 });
    const { adapter, client } = setup([
      { kind: "error", error: reset },
      {
        kind: "stream",
        events: [{ type: "stream_start" }, { type: "text_start", textId: "t" }],
        error: reset,
      },
      { kind: "response", response: textResponse("never") },
    ]);
    const result = stream({ client, model: "m", prompt: "x", retry: noSleep });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of result) seen.push(e.type);
      })(),
    ).rejects.toBe(reset);
    expect(seen).toEqual(["stream_start", "text_start"]);
    expect(adapter.calls).toHaveLength(2);
    await expect(result.result()).rejects.toBe(reset);
  });

  it("aborts a stream in the middle of its events", async () => {
    const { adapter: slow, client: slowClient } = setup([
      {
        kind: "stream",
        eventDelayMs: 5,
        events: [
          { type: "stream_start" },
          { type: "text_start", textId: "t" },
          ...Array.from({ length: 200 }, () => ({ type: "text_delta" as const, textId: "t", delta: "." })),
        ],
      },
    ]);
    const controller = new AbortController();
    const result = stream({ client: slowClient, model: "m", prompt: "x", signal: controller.signal });
    let deltas = 0;
    const err = await (async () => {
      for await (const e of result) {
        if (e.type === "text_delta" && ++deltas === 3) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(deltas).toBe(3);
    expect(slow.calls).toHaveLength(1);
  });

  it("aborts a hanging stream", async () => {
    const { client } = setup([{ kind: "hang" }]);
    const controller = new AbortController();
    const result = stream({ client, model: "m", prompt: "x", signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(result.result()).rejects.toBeInstanceOf(AbortError);
  });
});

describe("generateObject", () => {
  const person = objectSchema({ name: { type: "string" }, age: { type: "integer" } });

  it("asks for json_schema output and returns the parsed, validated object", async () => {
    const { adapter, client } = setup(
      [{ kind: "response", response: textResponse('{"name":"Alice","age":30}') }],
      "openai",
    );
    const result = await generateObject<{ name: string; age: number }>({
      client,
      model: "m",
      prompt: "Extract: Alice is 30 years old",
      schema: person,
    });
    expect(result.output).toEqual({ name: "Alice", age: 30 });
    expect(adapter.requests[0]!.responseFormat).toEqual({
      type: "json_schema",
      schema: person,
      name: "output",
      strict: true,
    });
    expect(adapter.requests[0]!.tools).toBeUndefined();
  });

  it("uses a forced tool on Anthropic and reads its arguments", async () => {
    const { adapter, client } = setup(
      [
        {
          kind: "response",
          response: toolCallResponse([{ name: "person", arguments: { name: "Bob", age: 41 } }]),
        },
      ],
      "anthropic",
    );
    const result = await generateObject({
      client,
      model: "m",
      prompt: "Bob, 41",
      schema: person,
      schemaName: "person",
    });
    expect(result.output).toEqual({ name: "Bob", age: 41 });
    const sent: Request = adapter.requests[0]!;
    expect(sent.toolChoice).toEqual({ mode: "named", toolName: "person" });
    expect(sent.tools?.[0]).toMatchObject({ name: "person", parameters: person });
    expect(sent.responseFormat).toBeUndefined();
    expect(adapter.calls).toHaveLength(1);
  });

  it("fails with NoObjectGeneratedError carrying the text, without retrying", async () => {
    const { adapter, client } = setup([
      { kind: "response", response: textResponse("I think Alice is 30") },
      { kind: "response", response: textResponse('{"name":"Alice","age":"thirty"}') },
    ]);
    const notJson = await generateObject({ client, model: "m", prompt: "x", schema: person }).catch(
      (e: unknown) => e,
    );
    expect(notJson).toBeInstanceOf(NoObjectGeneratedError);
    expect((notJson as NoObjectGeneratedError).text).toBe("I think Alice is 30");
    const invalid = await generateObject({ client, model: "m", prompt: "x", schema: person }).catch(
      (e: unknown) => e,
    );
    expect(invalid).toBeInstanceOf(NoObjectGeneratedError);
    expect((invalid as Error).message).toMatch(/age must be integer/);
    expect(adapter.calls).toHaveLength(2);
  });
});
