import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Session } from "../src/session/session.js";
import { nodeEnvironment, scriptedClient } from "../src/testing/index.js";
import { createAskUserTool, NO_USER_MESSAGE, type UserQuestion } from "../src/tools/ask-user.js";
import { validateArguments } from "../src/tools/schema.js";
import { createTodoTool, type TodoItem } from "../src/tools/todo.js";
import { tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const toolResults = (session: Session) =>
  session.history.flatMap((t) => (t.kind === "tool_results" ? t.results : []));

describe("todo tool", () => {
  it("replaces the whole list on each call inside a session and reports every change", async () => {
    const seen: (readonly TodoItem[])[] = [];
    const todo = createTodoTool({ onChange: (list) => seen.push(list) });
    const session = new Session({
      profile: testProfile([todo]),
      environment: nodeEnvironment(dir),
      client: scriptedClient([
        {
          toolCalls: [
            {
              name: "todo",
              args: {
                todos: [
                  { content: "Read the failing test", status: "in_progress" },
                  { content: "Fix add()", status: "pending" },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: "todo",
              args: {
                todos: [
                  { id: "1", content: "Read the failing test", status: "completed" },
                  { id: "2", content: "Fix add()", status: "in_progress" },
                ],
              },
            },
          ],
        },
        { text: "Working on it." },
      ]),
    });
    await session.submit("fix the bug");
    expect(seen).toEqual([
      [
        { id: "1", content: "Read the failing test", status: "in_progress" },
        { id: "2", content: "Fix add()", status: "pending" },
      ],
      [
        { id: "1", content: "Read the failing test", status: "completed" },
        { id: "2", content: "Fix add()", status: "in_progress" },
      ],
    ]);
    expect(todo.todos()).toEqual(seen[1]);
    const results = toolResults(session);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    expect(results[1]?.content).toBe(
      "Todo list updated: 1 completed, 1 in progress, 0 pending.\n[x] Read the failing test\n[>] Fix add()",
    );
    await session.close();
  });

  it("rejects two in_progress items, duplicate ids and bad statuses without changing the list", async () => {
    const seen: (readonly TodoItem[])[] = [];
    const initial: TodoItem[] = [{ id: "a", content: "keep me", status: "pending" }];
    const todo = createTodoTool({ initial, onChange: (l) => seen.push(l) });
    const run = (todos: unknown) => todo.executor({ todos }, nodeEnvironment(dir), { toolCallId: "c" });

    const two = await run([
      { content: "one", status: "in_progress" },
      { content: "two", status: "in_progress" },
    ]);
    expect(two).toMatchObject({ isError: true });
    expect((two as { output: string }).output).toContain("Only one item may be in_progress");

    const dup = await run([
      { id: "x", content: "one", status: "pending" },
      { id: "x", content: "two", status: "pending" },
    ]);
    expect((dup as { output: string }).output).toContain('id "x" is used twice');

    const bad = await run([{ content: "one", status: "done" }]);
    expect((bad as { output: string }).output).toContain('todos[0].status must be one of "pending"');

    expect(seen).toEqual([]);
    expect(todo.todos()).toEqual(initial);
    expect(await run([])).toMatchObject({ output: "The todo list is empty." });
    expect(todo.todos()).toEqual([]);
  });

  it("has a schema that accepts the documented shape and refuses unknown statuses", async () => {
    const schema = createTodoTool().definition.parameters;
    expect(await validateArguments(schema, { todos: [{ content: "x", status: "pending" }] })).toBeUndefined();
    expect(await validateArguments(schema, { todos: [{ content: "x", status: "blocked" }] })).toContain(
      "must be one of",
    );
    expect(await validateArguments(schema, {})).toContain('missing required property "todos"');
  });
});

describe("ask_user tool", () => {
  it("puts the question and options to the host and hands the answer to the model", async () => {
    const asked: UserQuestion[] = [];
    const tool = createAskUserTool({
      ask: async (q) => {
        asked.push(q);
        return "Use Postgres";
      },
    });
    const client = scriptedClient([
      {
        toolCalls: [
          {
            name: "ask_user",
            args: { question: "Which database?", options: ["SQLite", "Postgres", "SQLite"] },
          },
        ],
      },
      { text: "Postgres it is." },
    ]);
    const session = new Session({ profile: testProfile([tool]), environment: nodeEnvironment(dir), client });
    await session.submit("set up the db");
    expect(asked).toEqual([{ question: "Which database?", options: ["SQLite", "Postgres"] }]);
    expect(toolResults(session)).toMatchObject([
      { toolName: "ask_user", isError: false, content: "The user answered: Use Postgres" },
    ]);
    const second = client.requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(second)).toContain("The user answered: Use Postgres");
    await session.close();
  });

  it("tells the model nobody is there when the host has no user, and survives a failing host", async () => {
    const env = nodeEnvironment(dir);
    const noUser = createAskUserTool({ ask: async () => undefined });
    expect(await noUser.executor({ question: "Proceed?" }, env, { toolCallId: "c" })).toMatchObject({
      output: NO_USER_MESSAGE,
      isError: true,
    });
    const failing = createAskUserTool({
      ask: async () => {
        throw new Error("terminal closed");
      },
    });
    expect(await failing.executor({ question: "Proceed?" }, env, { toolCallId: "c" })).toMatchObject({
      output: "The question could not be asked: terminal closed",
      isError: true,
    });
    expect(await noUser.executor({ question: "  " }, env, { toolCallId: "c" })).toMatchObject({
      isError: true,
    });
  });
});
