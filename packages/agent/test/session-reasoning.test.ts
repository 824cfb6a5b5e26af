// Reasoning survives every tool round: the session sends the provider's own reasoning back with
// each later request, through the real adapters, at the default reasoning effort on Responses.
import { AnthropicAdapter, Client, OpenAIAdapter } from "@attractor/llm";
import {
  callItem,
  frames,
  messageDelta,
  messageItem,
  messageStart,
  type Reply,
  responseObject,
  startWireServer,
  streamFrames,
  usage,
  type WireServer,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createAnthropicProfile } from "../src/profiles/anthropic/index.js";
import { createOpenAIProfile } from "../src/profiles/openai/index.js";
import { Session } from "../src/session/session.js";
import { tempDir } from "./support/fixtures.js";

const WHOLE = { mode: "whole" } as const;
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

const responsesStep = (n: number, final: boolean): Reply => ({
  kind: "sse",
  chunking: WHOLE,
  frames: streamFrames(
    responseObject(
      `resp_${n}`,
      [
        { type: "reasoning", id: `rs_${n}`, summary: [], encrypted_content: `enc-${n}` },
        final
          ? messageItem(`msg_${n}`, "Done.")
          : callItem(`fc_${n}`, `call_${n}`, "shell", '{"command":"echo hi"}'),
      ],
      usage(5, 5, { reasoning: 3 }),
    ),
  ),
});

const anthropicStep = (n: number, final: boolean): Reply => {
  const block = final
    ? [
        { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Done." } },
      ]
    : [
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: `toolu_${n}`, name: "shell", input: {} },
        },
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: '{"command":"echo hi"}' },
        },
      ];
  return {
    kind: "sse",
    chunking: WHOLE,
    frames: frames([
      messageStart({}, `msg_${n}`),
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: `Step ${n}.` } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: `sig-${n}` } },
      { type: "content_block_stop", index: 0 },
      ...block,
      { type: "content_block_stop", index: 1 },
      messageDelta(final ? "end_turn" : "tool_use"),
      { type: "message_stop" },
    ]),
  };
};

describe("reasoning across tool rounds", () => {
  it("Responses: every encrypted reasoning item goes back, at the default effort", async () => {
    server.setHandler([responsesStep(1, false), responsesStep(2, false), responsesStep(3, true)]);
    server.requests.length = 0;
    const session = new Session({
      profile: createOpenAIProfile("gpt-5.2"),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client: new Client({
        providers: { openai: new OpenAIAdapter({ apiKey: "k", baseUrl: `${server.url}/v1`, env: {} }) },
      }),
    });
    await session.submit("Say hi twice.");
    await session.close();
    expect(server.requests).toHaveLength(3);
    for (const r of server.requests) {
      expect(r.body.include).toEqual(["reasoning.encrypted_content"]);
      expect(r.body.prompt_cache_key).toBe(session.id);
    }
    const reasoning = (i: number) =>
      server.requests[i]!.body.input.filter((x: { type: string }) => x.type === "reasoning").map(
        (x: { encrypted_content: string }) => x.encrypted_content,
      );
    expect(reasoning(1)).toEqual(["enc-1"]);
    expect(reasoning(2)).toEqual(["enc-1", "enc-2"]);
  });

  it("Anthropic: every signed thinking block goes back first in its turn, thinking stays on", async () => {
    server.setHandler([anthropicStep(1, false), anthropicStep(2, false), anthropicStep(3, true)]);
    server.requests.length = 0;
    const session = new Session({
      profile: createAnthropicProfile("claude-sonnet-4-5"),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client: new Client({
        providers: { anthropic: new AnthropicAdapter({ apiKey: "k", baseUrl: server.url, env: {} }) },
      }),
      config: { reasoningEffort: "medium" },
    });
    await session.submit("Say hi twice.");
    await session.close();
    expect(server.requests).toHaveLength(3);
    const last = server.requests[2]!;
    expect(last.body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(last.headers["anthropic-beta"]).toContain("interleaved-thinking-2025-05-14");
    const assistants = last.body.messages.filter((m: { role: string }) => m.role === "assistant");
    expect(assistants.map((m: { content: { type: string; signature?: string }[] }) => m.content[0])).toEqual([
      { type: "thinking", thinking: "Step 1.", signature: "sig-1" },
      { type: "thinking", thinking: "Step 2.", signature: "sig-2" },
    ]);
  });
});
