import type { Message, Request } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { historyToMessages, MISSING_TOOL_RESULT } from "../src/history/messages.js";
import { Session } from "../src/session/session.js";
import { nodeEnvironment, scriptedClient } from "../src/testing/index.js";
import type { Turn } from "../src/types/turn.js";
import { fnTool, tempDir, testProfile } from "./support/fixtures.js";

// A session keeps its system message while nothing in it changes, and builds a new one as soon
// as an input of it does: the profile or model, the tools offered, the mode, the instructions.

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const echo = fnTool("echo", async (args) => `echo:${String(args.text)}`, { text: { type: "string" } });
const probe = fnTool("probe_tool", async () => "probed");
const system = (request: Request | undefined): Message => request?.messages[0] as Message;
const text = (m: Message) => m.content.map((p) => (p.kind === "text" ? p.text : "")).join("");
const textOf = text;

describe("system prompt reuse", () => {
  it("is the same message while nothing changes and a new one after each change of its inputs", async () => {
    const profile = testProfile([echo]);
    const client = scriptedClient(() => ({ text: "ok" }));
    const session = new Session({ profile, environment: nodeEnvironment(dir), client });
    const at = (i: number) => system(client.requests[i]);

    await session.submit("one");
    await session.submit("two");
    expect(at(1)).toBe(at(0));

    session.updateConfig({ userInstructions: "Always answer in French." });
    await session.submit("three");
    expect(text(at(2))).toContain("Always answer in French.");
    expect(text(at(1))).not.toContain("Always answer in French.");
    await session.submit("four");
    expect(at(3)).toBe(at(2));

    // A tool registered later is listed in the prompt of the next request.
    profile.toolRegistry.register(probe);
    await session.submit("five");
    expect(text(at(4))).toContain("probe_tool");
    expect(text(at(3))).not.toContain("probe_tool");

    session.updateConfig({ readOnlyMode: "plan" });
    await session.submit("six");
    expect(text(at(5))).not.toBe(text(at(4)));

    session.updateConfig({ readOnlyMode: undefined, systemPrompt: "A replaced base prompt." });
    await session.submit("seven");
    expect(text(at(6))).toContain("A replaced base prompt.");

    session.setModel("another-model");
    await session.submit("eight");
    expect(text(at(7))).toContain("another-model");
    expect(text(at(6))).not.toContain("another-model");
    await session.close();
  });
});

describe("history to messages", () => {
  const call = (id: string) => ({ id, name: "echo", arguments: { text: id } });
  const assistant = (...ids: string[]): Turn =>
    ({
      kind: "assistant",
      content: "",
      parts: [],
      toolCalls: ids.map(call),
      timestamp: "t",
    }) as unknown as Turn;
  const results = (...ids: string[]): Turn =>
    ({
      kind: "tool_results",
      results: ids.map((id) => ({ toolCallId: id, toolName: "echo", content: `r-${id}`, isError: false })),
      timestamp: "t",
    }) as unknown as Turn;
  const user = (content: string): Turn => ({ kind: "user", content, timestamp: "t" }) as unknown as Turn;
  const shape = (history: Turn[]) =>
    historyToMessages(history).map((m) => {
      const part = m.content[0];
      return part?.kind === "tool_result"
        ? `result ${part.toolResult.toolCallId}: ${String(part.toolResult.content)}`
        : `${m.role}: ${textOf(m)}`;
    });

  it("answers every call: results in order, a missing one after them, an unanswered round before the next turn", () => {
    expect(shape([user("go"), assistant("a", "b"), results("b", "a"), user("next")])).toEqual([
      "user: go",
      "assistant: ",
      "result b: r-b",
      "result a: r-a",
      "user: next",
    ]);
    expect(shape([user("go"), assistant("a", "b"), results("a")])).toEqual([
      "user: go",
      "assistant: ",
      "result a: r-a",
      `result b: ${MISSING_TOOL_RESULT}`,
    ]);
    expect(shape([user("go"), assistant("a"), user("steer"), assistant("c")])).toEqual([
      "user: go",
      "assistant: ",
      `result a: ${MISSING_TOOL_RESULT}`,
      "user: steer",
      "assistant: ",
      `result c: ${MISSING_TOOL_RESULT}`,
    ]);
  });

  it("gives the same message objects for the unchanged turns of a history given again, new ones for replaced turns", () => {
    const history = [user("go"), assistant("a"), results("a")];
    const first = historyToMessages(history);
    history.push(user("more"));
    const again = historyToMessages(history);
    expect(again.slice(0, 3)).toEqual(first);
    for (let i = 0; i < 3; i++) expect(again[i]).toBe(first[i]);
    // Another array of the same turns gives equal messages (the memo is the array's).
    expect(historyToMessages([...history])).toEqual(again);
    history[3] = user("changed");
    const edited = historyToMessages(history);
    expect(textOf(edited[3] as Message)).toBe("changed");
    for (let i = 0; i < 3; i++) expect(edited[i]).toBe(first[i]);
  });

  it("redoes a history array changed in place from its first change, as a fresh array would give", () => {
    const history: Turn[] = [user("go"), assistant("a"), results("a"), assistant("b")];
    const check = () => expect(historyToMessages(history)).toEqual(historyToMessages([...history]));
    check();
    // The round's results arrive: the error result given before is replaced by the real one.
    history.push(results("b"));
    check();
    expect(shape(history).at(-1)).toBe("result b: r-b");
    history.push(user("more"), assistant("c", "d"), results("c", "d"));
    check();
    // A turn replaced in place (pruned tool output), a turn edited in the middle, a rewind.
    history[2] = results("a");
    check();
    history.splice(1, 2, user("summary"));
    check();
    history.length = 3;
    check();
    history.push(assistant("e"));
    check();
    expect(shape(history).at(-1)).toBe(`result e: ${MISSING_TOOL_RESULT}`);
  });
});
