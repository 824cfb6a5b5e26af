// Embedder scenarios through the package's public API only (the package index): a custom
// environment from five primitives, typed tools, llm tool() objects and a registry, a Session
// driven against a local server speaking the Anthropic wire protocol.
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import {
  ArgumentError,
  DEFAULT_SESSION_CONFIG,
  defineTool,
  type EnvironmentPrimitives,
  environmentFromPrimitives,
  FileNotFoundError,
  listDirTool,
  type PrimitiveDirent,
  Session,
  type SessionEvent,
  SessionState,
  ToolDefinitionError,
  ToolError,
  ToolRegistry,
  toLlmTool,
} from "@attractor/agent";
import { generate, tool } from "@attractor/llm";
import { startWireServer, type WireServer } from "@attractor/llm/testing";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelReply, WIRE_PROVIDERS, type WireView } from "../src/testing/index.js";
import { collect } from "./support/fixtures.js";

const anthropic = WIRE_PROVIDERS.find((p) => p.id === "anthropic")!;

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(() => server.close());

/** An embedder's environment: files in a Map, commands run by bash in a scratch directory. */
function mapEnvironment(initial: Record<string, string>) {
  const files = new Map<string, Uint8Array>(
    Object.entries(initial).map(([path, text]) => [path, new TextEncoder().encode(text)]),
  );
  const isDir = (path: string) =>
    path === "/" || [...files.keys()].some((f) => f.startsWith(path.endsWith("/") ? path : `${path}/`));
  const primitives: EnvironmentPrimitives = {
    workingDirectory: "/project",
    async read(path) {
      const bytes = files.get(path);
      if (!bytes) throw new FileNotFoundError(path);
      return bytes;
    },
    async write(path, content) {
      files.set(path, content);
    },
    async stat(path) {
      const bytes = files.get(path);
      if (bytes)
        return {
          isFile: true,
          isDirectory: false,
          isSymbolicLink: false,
          size: bytes.length,
          mtimeMs: 0,
          mode: 0o644,
        };
      if (isDir(path))
        return { isFile: false, isDirectory: true, isSymbolicLink: false, size: 0, mtimeMs: 0, mode: 0o755 };
      return undefined;
    },
    async readdir(path) {
      const prefix = path.endsWith("/") ? path : `${path}/`;
      const names = new Map<string, PrimitiveDirent>();
      for (const f of files.keys()) {
        if (!f.startsWith(prefix)) continue;
        const [name, ...rest] = f.slice(prefix.length).split("/");
        if (name) names.set(name, { name, isDirectory: rest.length > 0 });
      }
      return [...names.values()];
    },
    exec(command, options) {
      return new Promise((resolve) => {
        execFile(
          "bash",
          ["-c", command],
          { cwd: tmpdir(), signal: options.signal },
          (error, stdout, stderr) => {
            const code = (error as { code?: unknown } | null)?.code;
            resolve({ stdout, stderr, exitCode: error ? (typeof code === "number" ? code : null) : 0 });
          },
        );
      });
    },
  };
  return { files, environment: environmentFromPrimitives(primitives) };
}

const text = (files: Map<string, Uint8Array>, path: string) => new TextDecoder().decode(files.get(path));
const ends = (events: readonly SessionEvent[]) =>
  events.flatMap((e) => (e.kind === "tool_call_end" ? [e.data] : []));

/** A session on the Anthropic profile whose model follows `steps`, one reply per request. */
function drive(
  steps: readonly ((view: WireView) => ModelReply)[],
  options: Partial<ConstructorParameters<typeof Session>[0]> = {},
) {
  let i = 0;
  server.setHandler((request) => {
    const step = steps[Math.min(i++, steps.length - 1)]!;
    return anthropic.reply(step(anthropic.read(request)));
  });
  const session = new Session({
    profile: anthropic.profile(),
    environment: options.environment ?? mapEnvironment({}).environment,
    client: anthropic.client(server.url),
    retry: { maxRetries: 0 },
    ...options,
  });
  return { session, all: collect(session.events()) };
}

describe("a custom environment from five primitives", () => {
  it("runs a real Session's file, search and shell tools over a map of files", async () => {
    const { files, environment } = mapEnvironment({
      "/project/src/app.ts": "export const answer = 41;\n",
      "/project/src/util.ts": "export const helper = () => 1;\n",
      "/project/.gitignore": "build/\n",
      "/project/build/out.js": "answer\n",
      "/project/README.md": "# demo\n",
    });
    const { session, all } = drive(
      [
        () => ({ calls: [{ name: "read_file", args: { file_path: "src/app.ts" } }] }),
        () => ({ calls: [{ name: "grep", args: { pattern: "answer" } }] }),
        () => ({ calls: [{ name: "glob", args: { pattern: "**/*.ts" } }] }),
        () => ({ calls: [{ name: "list_dir", args: { path: ".", depth: 2 } }] }),
        () => ({
          calls: [
            { name: "edit_file", args: { file_path: "src/app.ts", old_string: "41", new_string: "42" } },
          ],
        }),
        () => ({ calls: [{ name: "write_file", args: { file_path: "notes/done.txt", content: "ok\n" } }] }),
        () => ({ calls: [{ name: "shell", args: { command: "echo from-bash; exit 3" } }] }),
        () => ({ calls: [{ name: "read_file", args: { file_path: "missing.ts" } }] }),
        () => ({ text: "Done." }),
      ],
      { environment, tools: [listDirTool()] },
    );
    await session.submit("Fix the answer.");
    await session.close();
    const out = ends(await all);
    expect(out.map((e) => e.toolName)).toEqual([
      "read_file",
      "grep",
      "glob",
      "list_dir",
      "edit_file",
      "write_file",
      "shell",
      "read_file",
    ]);
    expect(out[0]?.output).toBe("1 | export const answer = 41;");
    // The ignored build/ directory is neither searched nor listed.
    expect(out[1]?.output).toBe("src/app.ts:1:export const answer = 41;");
    expect(out[2]?.output.split("\n").sort()).toEqual(["src/app.ts", "src/util.ts"]);
    expect(out[3]?.output).toBe(
      ["./", "  README.md (7 B)", "  src/", "    app.ts (26 B)", "    util.ts (31 B)"].join("\n"),
    );
    expect(out[4]?.isError).toBe(false);
    expect(text(files, "/project/src/app.ts")).toBe("export const answer = 42;\n");
    expect(text(files, "/project/notes/done.txt")).toBe("ok\n");
    expect(out[6]).toMatchObject({ isError: true });
    expect(out[6]?.output).toMatch(/^from-bash\nExit code: 3/);
    expect(out[7]).toMatchObject({ isError: true, errorCode: "ENOENT" });
    expect(out[7]?.output).toMatch(/^File not found: missing\.ts/);
  });

  it("cuts a command at its timeout and reports it", async () => {
    const { environment } = mapEnvironment({});
    const result = await environment.execCommand("sleep 5; echo late", { timeoutMs: 200 });
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitCode: null });
    expect(result.output).not.toContain("late");
  });
});

describe("tools an embedder defines", () => {
  it("offers defineTool and llm tool() objects through Session({ tools }), leaving the profile as it was", async () => {
    const profile = anthropic.profile();
    const before = profile.toolRegistry.names();
    const seen: unknown[] = [];
    const add = defineTool({
      name: "add",
      description: "Adds two integers.",
      parameters: Type.Object({ a: Type.Integer(), b: Type.Integer() }, { additionalProperties: false }),
      readOnly: true,
      execute: ({ a, b }) => {
        seen.push([a, b]);
        if (a < 0) throw new ArgumentError("a must not be negative", "a");
        return String(a + b);
      },
    });
    const weather = tool({
      name: "weather",
      description: "The weather in a city.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: async (args: { city: string }) => ({ city: args.city, sky: "clear" }),
    });
    const { session, all } = drive(
      [
        (view) => {
          expect(view.tools).toEqual([...before, "add", "weather"]);
          return {
            calls: [
              { name: "add", args: { a: 2, b: 3 } },
              { name: "weather", args: { city: "Oslo" } },
              { name: "add", args: { a: -1, b: 1 } },
              { name: "add", args: { a: "two", b: 1 } },
            ],
          };
        },
        () => ({ text: "5, clear in Oslo." }),
      ],
      { profile, tools: [add, weather] },
    );
    await session.submit("go");
    await session.close();
    // Calls run in parallel on this profile: put the ends back in call order.
    const out = ends(await all).sort((x, y) => x.callId.localeCompare(y.callId));
    expect(out.map((e) => [e.output, e.isError, e.errorCode])).toEqual([
      ["5", false, undefined],
      ['{"city":"Oslo","sky":"clear"}', false, undefined],
      ["a must not be negative", true, "invalid_argument"],
      [
        expect.stringMatching(/^Invalid arguments for tool: add: a must be integer/),
        true,
        "invalid_arguments",
      ],
    ]);
    // Arguments that fail the schema never reach execute.
    expect(seen).toEqual([
      [2, 3],
      [-1, 1],
    ]);
    expect(profile.toolRegistry.names()).toEqual(before);
  });

  it("keeps a session's tools over a model change, and hides a profile tool only for that session", async () => {
    const profile = anthropic.profile();
    const extra = defineTool({
      name: "ping",
      description: "Answers pong.",
      parameters: Type.Object({}),
      execute: () => "pong",
    });
    const { session, all } = drive(
      [
        (view) => {
          expect(view.tools).toContain("ping");
          expect(view.tools).not.toContain("shell");
          return { calls: [{ name: "ping", args: {} }] };
        },
        () => ({ text: "ok" }),
      ],
      { profile, tools: [extra] },
    );
    expect(session.profile.toolRegistry.unregister("shell")).toBe(true);
    session.setModel("claude-haiku-4-5");
    await session.submit("go");
    await session.close();
    expect(ends(await all).map((e) => e.output)).toEqual(["pong"]);
    expect(profile.toolRegistry.get("shell")).toBeDefined();
    expect(profile.toolRegistry.get("ping")).toBeUndefined();
  });

  it("reports on tool_call_end the arguments a beforeToolCall hook rewrote", async () => {
    const { environment, files } = mapEnvironment({ "/project/a.txt": "x\n" });
    const { session, all } = drive(
      [
        () => ({ calls: [{ name: "write_file", args: { file_path: "a.txt", content: "model\n" } }] }),
        () => ({ text: "ok" }),
      ],
      {
        environment,
        config: {
          beforeToolCall: (call) => ({
            action: "rewrite",
            arguments: { ...call.arguments, content: "host\n" },
          }),
        },
      },
    );
    await session.submit("go");
    await session.close();
    const events = await all;
    const start = events.find((e) => e.kind === "tool_call_start");
    expect(start?.data).toMatchObject({ arguments: { file_path: "a.txt", content: "model\n" } });
    expect(ends(events)[0]?.arguments).toEqual({ file_path: "a.txt", content: "host\n" });
    expect(text(files, "/project/a.txt")).toBe("host\n");
  });

  it("refuses a bad tool object at registration with a typed error naming the field", () => {
    const environment = mapEnvironment({}).environment;
    const client = anthropic.client(server.url);
    const make = (tools: readonly unknown[]) =>
      new Session({ profile: anthropic.profile(), environment, client, tools: tools as never });
    const caught = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const noExecute = caught(() =>
      make([tool({ name: "passive", description: "", parameters: { type: "object" } })]),
    );
    expect(noExecute).toBeInstanceOf(ToolDefinitionError);
    expect(noExecute).toMatchObject({ toolName: "passive", field: "execute" });
    expect(
      caught(() =>
        make([{ definition: { name: "bad name", description: "", parameters: { type: "object" } } }]),
      ),
    ).toMatchObject({
      field: "name",
    });
    expect(
      caught(() =>
        make([
          { definition: { name: "x", description: "d", parameters: { type: "string" } }, executor: () => "" },
        ]),
      ),
    ).toMatchObject({ toolName: "x", field: "parameters" });
    expect(caught(() => make([null]))).toMatchObject({ field: "tool" });
    expect(() =>
      defineTool({ name: "9lives", description: "", parameters: Type.Object({}), execute: () => "" }),
    ).toThrow(ToolDefinitionError);
  });

  it("keeps one registry semantics: a replacement takes the old one's place, a new name goes last", () => {
    const make = (name: string, description = name) =>
      defineTool({ name, description, parameters: Type.Object({}), execute: () => description });
    const registry = new ToolRegistry([make("a"), make("b"), make("c")]);
    registry.register(make("a", "a2"));
    registry.register(make("d"));
    expect(registry.names()).toEqual(["a", "b", "c", "d"]);
    expect(registry.get("a")?.definition.description).toBe("a2");
    expect(() => registry.register({ definition: { name: "e" } } as never)).toThrow(ToolDefinitionError);
    expect(registry.names()).toEqual(["a", "b", "c", "d"]);
    // The profiles' registries behave the same.
    const profile = anthropic.profile();
    const names = profile.toolRegistry.names();
    profile.toolRegistry.register(make("read_file", "mine"));
    expect(profile.toolRegistry.names()).toEqual(names);
  });

  it("runs a registered tool from llm generate() through toLlmTool", async () => {
    const { environment } = mapEnvironment({ "/project/a.txt": "hello\n" });
    const reader = defineTool({
      name: "peek",
      description: "First line of a file.",
      parameters: Type.Object({ path: Type.String() }),
      execute: async ({ path }, { environment: env }) =>
        (await env.readFile(path, { limit: 1 })) || "(empty)",
    });
    // generate() without streaming: whole Messages API responses.
    const message = (content: unknown[], stop: string) => ({
      kind: "json" as const,
      body: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: anthropic.model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    });
    server.setHandler((request) => {
      const result = anthropic.read(request).toolResults[0];
      if (!result)
        return message(
          [{ type: "tool_use", id: "toolu_1", name: "peek", input: { path: "a.txt" } }],
          "tool_use",
        );
      return message([{ type: "text", text: `saw ${result.output}` }], "end_turn");
    });
    const result = await generate({
      client: anthropic.client(server.url),
      model: anthropic.model,
      provider: "anthropic",
      prompt: "peek",
      tools: [toLlmTool(reader, environment)],
      maxToolRounds: 2,
    });
    expect(result.text).toBe("saw hello");
  });

  it("typed errors carry their code", () => {
    const error = new ToolError("quota", "Quota exceeded");
    expect(error).toMatchObject({ code: "quota", message: "Quota exceeded" });
  });
});

describe("the loop's limits and settling", () => {
  it("stops a runaway loop at the default ceiling of tool rounds with a non-success finish", async () => {
    expect(DEFAULT_SESSION_CONFIG.maxToolRoundsPerInput).toBe(200);
    let n = 0;
    const { session, all } = drive([
      () => ({ calls: [{ name: "read_file", args: { file_path: `f${n++}.txt` } }] }),
    ]);
    await session.submit("loop");
    await session.close();
    const events = await all;
    expect(events.find((e) => e.kind === "turn_limit")?.data).toMatchObject({
      limit: "max_tool_rounds_per_input",
      value: 200,
      toolRounds: 200,
    });
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("turn_limit");
    expect(server.requests.length).toBeGreaterThanOrEqual(200);
  });

  it("escalates loop detection: steering warnings first, then the input stops with an error", async () => {
    const { session, all } = drive([
      () => ({ calls: [{ name: "read_file", args: { file_path: "same.txt" } }] }),
    ]);
    await session.submit("loop");
    await session.close();
    const events = await all;
    expect(events.filter((e) => e.kind === "loop_detection")).toHaveLength(2);
    // Each warning went to the model as a steering message before the stop.
    const lastRequest = anthropic.read(server.requests.at(-1)!);
    expect(lastRequest.userTexts.filter((t) => t.startsWith("Loop detected"))).toHaveLength(2);
    expect(events.find((e) => e.kind === "error")?.data).toMatchObject({ errorName: "LoopDetectedError" });
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("error");
  });

  it("resolves submit() only once the state has settled after abort() mid-stream", async () => {
    server.setHandler(() => {
      const reply = anthropic.reply({ text: "a long answer that never ends" });
      return reply.kind === "sse" ? { ...reply, stallAfter: 3 } : reply;
    });
    const session = new Session({
      profile: anthropic.profile(),
      environment: mapEnvironment({}).environment,
      client: anthropic.client(server.url),
      retry: { maxRetries: 0 },
      config: {
        hooks: {
          // A slow end hook widens the window in which the state used to lag behind.
          sessionEnd: () => new Promise((resolve) => setTimeout(resolve, 50)),
        },
      },
    });
    session.subscribe((event) => {
      if (event.kind === "assistant_text_start") void session.abort();
    });
    await session.submit("go");
    expect(session.state).toBe(SessionState.CLOSED);
  });
});
