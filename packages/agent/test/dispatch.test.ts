import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolCallData } from "@attractor/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CompletedToolCall,
  dispatchToolCalls,
  LocalExecutionEnvironment,
  type RegisteredTool,
  shellTool,
  type ToolOutput,
  ToolRegistry,
} from "../src/index.js";

let dir: string;
let env: LocalExecutionEnvironment;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dispatch-test-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterAll(async () => {
  await env.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const log: string[] = [];

/** A tool that appends to a file through the environment, recording when it starts and ends. */
const appendTool: RegisteredTool = {
  definition: {
    name: "append",
    description: "append",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, text: { type: "string" }, delayMs: { type: "integer" } },
      required: ["path", "text"],
      additionalProperties: false,
    },
  },
  executor: async (args, e) => {
    log.push(`start ${args.text}`);
    const path = String(args.path);
    const before = (await e.fileExists(path)) ? await e.readFile(path) : "";
    await new Promise((r) => setTimeout(r, Number(args.delayMs ?? 0)));
    await e.writeFile(path, before + String(args.text));
    log.push(`end ${args.text}`);
    return `appended ${args.text}`;
  },
  targets: (args) => [String(args.path)],
};

const failing: RegisteredTool = {
  definition: { name: "boom", description: "fails", parameters: { type: "object", properties: {} } },
  executor: async () => {
    throw new Error("kaput");
  },
};

const registry = new ToolRegistry([appendTool, failing, shellTool()]);
const call = (id: string, name: string, args: Record<string, unknown>, raw?: string): ToolCallData => ({
  id,
  name,
  arguments: args,
  ...(raw !== undefined && { rawArguments: raw }),
});

describe("dispatchToolCalls", () => {
  it("turns every failure into an error outcome, in call order", async () => {
    const out = await dispatchToolCalls(
      [
        call("1", "nope", {}),
        call("2", "append", {}, "{not json"),
        call("3", "append", { path: 5 }),
        call("4", "boom", {}),
        call("5", "append", {}, "[1]"),
      ],
      registry,
      env,
    );
    expect(out.map((o) => [o.toolCallId, o.isError])).toEqual([
      ["1", true],
      ["2", true],
      ["3", true],
      ["4", true],
      ["5", true],
    ]);
    expect(out[0]?.output).toBe("Unknown tool: nope");
    expect(out[1]?.output).toMatch(/^Invalid arguments for tool: append: arguments are not valid JSON/);
    expect(out[2]?.output).toMatch(/^Invalid arguments for tool: append: /);
    expect(out[2]?.output).toContain("path must be string");
    expect(out[2]?.output).toContain('missing required property "text"');
    expect(out[3]?.output).toBe("Tool error (boom): kaput");
    expect(out[4]?.output).toBe("Invalid arguments for tool: append: arguments must be a JSON object");
  });

  it("serialises calls on the same file and runs independent ones concurrently", async () => {
    log.length = 0;
    await dispatchToolCalls(
      [
        call("a", "append", { path: "same.txt", text: "A", delayMs: 60 }),
        call("b", "append", { path: "same.txt", text: "B" }),
        call("c", "append", { path: "other.txt", text: "C" }),
      ],
      registry,
      env,
    );
    expect(await env.readFile("same.txt")).toBe("AB");
    // C started before A ended (concurrent); B started only after A ended (serialised).
    expect(log.indexOf("start C")).toBeLessThan(log.indexOf("end A"));
    expect(log.indexOf("start B")).toBeGreaterThan(log.indexOf("end A"));
  });

  it("runs hooks: deny, rewrite (validated again), after", async () => {
    const out = await dispatchToolCalls(
      [
        call("d", "append", { path: "h.txt", text: "denied" }),
        call("r", "append", { path: "h.txt", text: "orig" }),
        call("x", "append", { path: "h2.txt", text: "bad-rewrite" }),
      ],
      registry,
      env,
      {
        beforeToolCall: (c) => {
          if (c.arguments.text === "denied") return { action: "deny", message: "not allowed here" };
          if (c.arguments.text === "orig")
            return { action: "rewrite", arguments: { path: "h.txt", text: "new" } };
          if (c.arguments.text === "bad-rewrite") return { action: "rewrite", arguments: { path: "h2.txt" } };
          return { action: "allow" };
        },
        afterToolCall: (_c, r) => (r.isError ? undefined : { output: `${r.output}!`, isError: false }),
      },
    );
    expect(out.map((o) => [o.output, o.isError])).toEqual([
      ["not allowed here", true],
      ["appended new!", false],
      ['Invalid arguments for tool: append: missing required property "text"', true],
    ]);
    expect(out[1]?.arguments).toEqual({ path: "h.txt", text: "new" });
    expect(await env.readFile("h.txt")).toBe("new");
  });

  it("gives afterToolCall the tool's whole ToolOutput; a replacement keeps the image unless it brings one", async () => {
    const picture: RegisteredTool = {
      definition: {
        name: "picture",
        description: "an image",
        parameters: { type: "object", properties: {} },
      },
      executor: async () => ({ output: "a picture", image: { data: "AAAA", mediaType: "image/png" } }),
    };
    const seen: ToolOutput[] = [];
    const out = await dispatchToolCalls(
      [call("k", "picture", {}), call("n", "picture", {})],
      new ToolRegistry([picture]),
      env,
      {
        afterToolCall: (c, r) => {
          seen.push(r);
          return c.callId === "k"
            ? { output: "kept image" }
            : { output: "new image", image: { data: "BBBB", mediaType: "image/png" } };
        },
      },
    );
    expect(seen[0]).toEqual({
      output: "a picture",
      isError: false,
      image: { data: "AAAA", mediaType: "image/png" },
    });
    expect(out.map((o) => [o.output, o.isError, o.image?.data])).toEqual([
      ["kept image", false, "AAAA"],
      ["new image", false, "BBBB"],
    ]);
  });

  it("truncates for the model, keeps the full output, streams deltas and reports lifecycle", async () => {
    const deltas: string[] = [];
    const events: string[] = [];
    const ends: CompletedToolCall[] = [];
    const [o] = await dispatchToolCalls([call("s", "shell", { command: "seq 1 1000" })], registry, env, {
      onStart: (c) => events.push(`start ${c.id}`),
      onOutputDelta: (_id, d) => deltas.push(d),
      onEnd: (e) => {
        events.push(`end ${e.toolCallId}`);
        ends.push(e);
      },
    });
    expect(events).toEqual(["start s", "end s"]);
    expect(o?.output).toContain("\n1000\nExit code: 0\nDuration: ");
    expect(o?.modelOutput).toContain("lines omitted");
    expect(o?.truncated).toBe(true);
    expect(deltas.join("")).toContain("1000\n");
    expect(o?.details).toMatchObject({ exitCode: 0, timedOut: false });
    expect(ends[0]).toBe(o);
  });
});

describe("shell tool", () => {
  it("reports a timeout with the spec's message and the partial output", async () => {
    const [o] = await dispatchToolCalls(
      [call("t", "shell", { command: "echo partial; sleep 10", timeout_ms: 300 })],
      registry,
      env,
    );
    expect(o?.isError).toBe(true);
    expect(o?.output).toContain(
      "partial\n[ERROR: Command timed out after 300ms. Partial output is shown above.\nYou can retry with a longer timeout by setting the timeout_ms parameter.]",
    );
    expect(o?.details).toMatchObject({ timedOut: true });
  });

  it("explains a command that cannot start (missing working directory) as an error result", async () => {
    const gone = new LocalExecutionEnvironment({ workingDirectory: join(dir, "no-such-dir") });
    await expect(gone.execCommand("true")).rejects.toThrow("File not found");
    const [o] = await dispatchToolCalls([call("m", "shell", { command: "true" })], registry, gone);
    expect(o?.isError).toBe(true);
    expect(o?.output).toBe(`Could not run the command: File not found: ${join(dir, "no-such-dir")}`);
  });

  it("uses the tool default over the session default, clamped to the maximum", async () => {
    const r = new ToolRegistry([shellTool({ defaultTimeoutMs: 200 })]);
    const [o] = await dispatchToolCalls([call("t", "shell", { command: "sleep 5" })], r, env, {
      defaultCommandTimeoutMs: 60_000,
    });
    expect(o?.output).toContain("timed out after 200ms");
    const [p] = await dispatchToolCalls(
      [call("u", "shell", { command: "sleep 5", timeout_ms: 90_000 })],
      registry,
      env,
      {
        maxCommandTimeoutMs: 250,
      },
    );
    expect(p?.output).toContain("timed out after 250ms");
  });
});

describe("ToolRegistry", () => {
  it("replaces by name in place, removes, and offers a read-only subset", () => {
    const r = new ToolRegistry([appendTool, { ...failing, readOnly: true }]);
    r.register({ ...appendTool, definition: { ...appendTool.definition, description: "v2" } });
    expect(r.names()).toEqual(["append", "boom"]);
    expect(r.get("append")?.definition.description).toBe("v2");
    expect(r.readOnly().names()).toEqual(["boom"]);
    expect(r.unregister("boom")).toBe(true);
    expect(r.has("boom")).toBe(false);
    expect(r.definitions().map((d) => d.name)).toEqual(["append"]);
  });
});
