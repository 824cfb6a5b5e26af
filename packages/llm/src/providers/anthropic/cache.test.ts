import { describe, expect, it } from "vitest";
import { assistantMessage, type Request, systemMessage, userMessage } from "../../types/index.js";
import { buildMessagesRequest } from "./request.js";

const markers = (value: unknown): number => JSON.stringify(value).match(/"cache_control"/g)?.length ?? 0;

describe("automatic cache breakpoints", () => {
  it("marks only the single user turn when there is no earlier one", async () => {
    const { body, headers } = await buildMessagesRequest({ model: "m", messages: [userMessage("only")] });
    expect(body.messages[0]?.content).toEqual([
      { type: "text", text: "only", cache_control: { type: "ephemeral" } },
    ]);
    expect(markers(body)).toBe(1);
    expect(headers["anthropic-beta"]).toBeUndefined();
  });

  it("counts markers given through provider options against the limit of four", async () => {
    const request: Request = {
      model: "m",
      messages: [
        userMessage("a"),
        assistantMessage("b"),
        userMessage("c"),
        assistantMessage("d"),
        userMessage("e"),
      ],
      providerOptions: {
        anthropic: {
          system: [
            { type: "text", text: "one", cache_control: { type: "ephemeral" } },
            { type: "text", text: "two", cache_control: { type: "ephemeral" } },
          ],
        },
      },
    };
    const { body } = await buildMessagesRequest(request);
    expect(markers(body)).toBe(4);
    expect(markers(body.messages.at(-1))).toBe(1);
    expect(markers(body.messages[2])).toBe(1);
  });

  it("accepts a plain-string system prompt from provider options", async () => {
    const { body } = await buildMessagesRequest({
      model: "m",
      messages: [systemMessage("ignored"), userMessage("hi")],
      providerOptions: { anthropic: { system: "raw system" } },
    });
    expect(body.system).toBe("raw system");
    expect(markers(body)).toBe(1);
  });
});
