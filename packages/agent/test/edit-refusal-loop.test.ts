import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Message, Request, Response, StreamEvent } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { Session } from "../src/session/session.js";
import { nodeEnvironment } from "../src/testing/index.js";
import { tempDir } from "./support/fixtures.js";

// A scripted model that calls edit_file through the prompted (<tool_call> text) path with a stale
// context line, reads the refusal the way a model does, and sends the lines it shows.

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const textOf = (m: Message): string => m.content.map((p) => (p.kind === "text" ? p.text : "")).join("");

function textClient(script: (request: Request, index: number) => string) {
  const requests: Request[] = [];
  return {
    requests,
    async *stream(request: Request): AsyncGenerator<StreamEvent> {
      const index = requests.length;
      requests.push(request);
      const text = script(request, index);
      await Promise.resolve();
      yield { type: "stream_start", id: `r${index}`, model: request.model };
      yield { type: "text_start", textId: "t" };
      yield { type: "text_delta", textId: "t", delta: text };
      yield { type: "text_end", textId: "t" };
      const response: Response = {
        id: `r${index}`,
        model: request.model,
        provider: "openai-compatible",
        message: { role: "assistant", content: [{ kind: "text", text }] },
        finishReason: { reason: "stop", raw: "stop" },
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        warnings: [],
      };
      yield { type: "finish", finishReason: response.finishReason, usage: response.usage, response };
    },
  };
}

const call = (args: Record<string, unknown>) =>
  `<tool_call>${JSON.stringify({ name: "edit_file", arguments: args })}</tool_call>`;

describe("edit_file through the prompted tool path", () => {
  it("refuses a stale edit, and the call built from the refusal succeeds", async () => {
    const file = [
      "func main() {",
      '\tcfg := load("app.toml")',
      "\tif cfg.Debug {",
      '\t\tlog.Println("debug on")',
      "\t}",
      "\trun(cfg)",
      "}",
      "",
    ].join("\n");
    await writeFile(join(dir, "main.go"), file);
    const results: string[] = [];
    const client = textClient((request, i) => {
      if (i > 0) results.push(textOf(request.messages.at(-1) as Message));
      if (i === 0) {
        // Remembers line 2 wrong ("config.toml") and wants run(cfg) to become start(cfg).
        return call({
          file_path: "main.go",
          old_string:
            '\tcfg := load("config.toml")\n\tif cfg.Debug {\n\t\tlog.Println("debug on")\n\t}\n\trun(cfg)',
          new_string:
            '\tcfg := load("config.toml")\n\tif cfg.Debug {\n\t\tlog.Println("debug on")\n\t}\n\tstart(cfg)',
        });
      }
      if (i === 1) {
        const shown = (results[0] as string)
          .split("\n")
          .map((line) => /^[>~ ] +\d+ \| (.*)$/.exec(line)?.[1])
          .filter((line): line is string => line !== undefined);
        const old = shown.join("\n");
        return call({
          file_path: "main.go",
          old_string: old,
          new_string: old.replace("\trun(cfg)", "\tstart(cfg)"),
        });
      }
      return "Done.";
    });
    const session = new Session({
      profile: createOpenAICompatibleProfile("small-model", { toolCallMode: "prompted" }),
      environment: nodeEnvironment(dir),
      client,
    });
    await session.submit("rename run to start in main.go");
    await session.close();

    expect(results[0]).toContain("not found in main.go");
    expect(results[0]).toContain('> 2 | \tcfg := load("app.toml")');
    expect(results[1]).toContain("Edited main.go");
    expect(await readFile(join(dir, "main.go"), "utf8")).toBe(file.replace("\trun(cfg)", "\tstart(cfg)"));
  });
});
