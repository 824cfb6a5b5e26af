// read_file of a PDF sends the document itself to providers that take documents in tool results
// (Anthropic document blocks, Responses input_file, Gemini inline data) and its extracted text to
// the others; a PDF above the limits, or a range of pages, goes as text and says so. Every request
// is checked against the provider's specification by the wire server.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  AnthropicAdapter,
  Client,
  GeminiAdapter,
  OpenAIAdapter,
  OpenAICompatibleAdapter,
  type ProviderAdapter,
} from "@attractor/llm";
import {
  callItem,
  chunkReply,
  frames,
  messageItem,
  type RecordedRequest,
  type Reply,
  responseObject,
  startWireServer,
  streamChunkFrames,
  streamEventsFor,
  streamFrames,
  usage,
  usageMetadata,
  type WireServer,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createAnthropicProfile } from "../src/profiles/anthropic/index.js";
import { createGeminiProfile } from "../src/profiles/gemini/index.js";
import { createOpenAIProfile } from "../src/profiles/openai/index.js";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { Session } from "../src/session/session.js";
import { PDF_DOCUMENT_MAX_PAGES } from "../src/tools/pdf/read-pdf.js";
import { readFileTool } from "../src/tools/read-file.js";
import type { ProviderProfile } from "../src/types/profile.js";
import type { ToolOutput } from "../src/types/tool.js";
import { tempDir } from "./support/fixtures.js";
import { makePdf } from "./support/make-pdf.js";

const WHOLE = { mode: "whole" } as const;
let server: WireServer;
let dir: string;
let remove: () => Promise<void>;
let env: LocalExecutionEnvironment;
let reportBase64: string;
beforeAll(async () => {
  server = await startWireServer([]);
  ({ dir, remove } = await tempDir());
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
  await writeFile(
    join(dir, "report.pdf"),
    makePdf([["Quarterly report", "Revenue grew by 12 percent."], ["Outlook: steady."]]),
  );
  await writeFile(
    join(dir, "long.pdf"),
    makePdf(Array.from({ length: PDF_DOCUMENT_MAX_PAGES + 1 }, (_, i) => [`Page text ${i + 1}`])),
  );
  reportBase64 = (await readFile(join(dir, "report.pdf"))).toString("base64");
});
afterAll(async () => {
  await server.close();
  await remove();
});

const read = async (args: Record<string, unknown>) =>
  (await readFileTool().executor(args, env, { toolCallId: "p" })) as ToolOutput;

describe("read_file of a PDF", () => {
  it("read whole, carries the PDF itself as a document beside its text", async () => {
    const out = await read({ file_path: "report.pdf" });
    expect(out.output).toContain("Revenue grew by 12 percent.");
    expect(out.document?.document).toEqual({
      data: reportBase64,
      mediaType: "application/pdf",
      fileName: "report.pdf",
    });
    expect(out.document?.text).toBe("PDF report.pdf, 2 pages: the whole document is attached.");
  });

  it("a range of pages is text only", async () => {
    const out = await read({ file_path: "report.pdf", offset: 2, limit: 1 });
    expect(out.document).toBeUndefined();
    expect(out.output).toContain("Outlook: steady.");
  });

  it("above the page limit, it is text only and says why", async () => {
    const out = await read({ file_path: "long.pdf" });
    expect(out.document).toBeUndefined();
    expect(out.output).toContain(
      `Too large to attach as a document: above 10 MB or ${PDF_DOCUMENT_MAX_PAGES} pages; its text follows.`,
    );
    expect(out.output).toContain("Page text 1");
  });
});

const readCall = { file_path: "report.pdf" };

interface Case {
  readonly name: string;
  readonly profile: () => ProviderProfile;
  readonly adapter: () => [string, ProviderAdapter];
  readonly replies: Reply[];
  /** The tool result as the second request carries it. */
  readonly result: (body: RecordedRequest["body"]) => unknown;
  readonly expected: unknown;
}

const cases: Case[] = [
  {
    name: "Anthropic: a document block with the PDF, and the note in place of the text",
    profile: () => createAnthropicProfile("claude-sonnet-4-5"),
    adapter: () => ["anthropic", new AnthropicAdapter({ apiKey: "k", baseUrl: server.url, env: {} })],
    replies: [
      {
        kind: "sse",
        chunking: WHOLE,
        frames: frames(
          streamEventsFor(
            [{ type: "tool_use", id: "toolu_1", name: "read_file", input: readCall }],
            "tool_use",
            { input: 10, output: 10 },
          ),
        ),
      },
      {
        kind: "sse",
        chunking: WHOLE,
        frames: frames(
          streamEventsFor([{ type: "text", text: "Revenue grew." }], "end_turn", { input: 9, output: 3 }),
        ),
      },
    ],
    result: (body) =>
      body.messages.at(-1).content.find((b: { type: string }) => b.type === "tool_result").content,
    expected: [
      { type: "text", text: "PDF report.pdf, 2 pages: the whole document is attached." },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "<pdf>" },
        title: "report.pdf",
      },
    ],
  },
  {
    name: "OpenAI Responses: an input_file with the PDF as a data URL",
    profile: () => createOpenAIProfile("gpt-5.2"),
    adapter: () => ["openai", new OpenAIAdapter({ apiKey: "k", baseUrl: `${server.url}/v1`, env: {} })],
    replies: [
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamFrames(
          responseObject(
            "resp_1",
            [callItem("fc_1", "call_1", "read_file", JSON.stringify(readCall))],
            usage(5, 5),
          ),
        ),
      },
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamFrames(responseObject("resp_2", [messageItem("msg_2", "Revenue grew.")], usage(5, 5))),
      },
    ],
    result: (body) => body.input.find((i: { type: string }) => i.type === "function_call_output").output,
    expected: [
      { type: "input_text", text: "PDF report.pdf, 2 pages: the whole document is attached." },
      { type: "input_file", filename: "report.pdf", file_data: "data:application/pdf;base64,<pdf>" },
    ],
  },
  {
    name: "Gemini 3: inline data inside the function response",
    profile: () => createGeminiProfile("gemini-3-pro-preview"),
    adapter: () => ["gemini", new GeminiAdapter({ apiKey: "k", baseUrl: server.url, env: {} })],
    replies: [
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamChunkFrames(
          [{ functionCall: { name: "read_file", args: readCall }, thoughtSignature: "c2ln" }],
          usageMetadata(5, 5),
        ),
      },
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamChunkFrames([{ text: "Revenue grew." }], usageMetadata(5, 5)),
      },
    ],
    result: (body) => body.contents.at(-1).parts,
    expected: [
      {
        functionResponse: {
          name: "read_file",
          response: { result: "PDF report.pdf, 2 pages: the whole document is attached." },
          parts: [{ inlineData: { mimeType: "application/pdf", data: "<pdf>" } }],
        },
      },
    ],
  },
  {
    name: "Gemini 2.5: inline data after the function response",
    profile: () => createGeminiProfile("gemini-2.5-pro"),
    adapter: () => ["gemini", new GeminiAdapter({ apiKey: "k", baseUrl: server.url, env: {} })],
    replies: [
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamChunkFrames(
          [{ functionCall: { name: "read_file", args: readCall } }],
          usageMetadata(5, 5),
        ),
      },
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamChunkFrames([{ text: "Revenue grew." }], usageMetadata(5, 5)),
      },
    ],
    result: (body) => body.contents.at(-1).parts,
    expected: [
      {
        functionResponse: {
          name: "read_file",
          response: { result: "PDF report.pdf, 2 pages: the whole document is attached." },
        },
      },
      { inlineData: { mimeType: "application/pdf", data: "<pdf>" } },
    ],
  },
];

/** The body with the PDF's base64 replaced by a marker, so a mismatch prints readably. */
const marked = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value).split(reportBase64).join("<pdf>"));

async function run(c: Pick<Case, "profile" | "adapter" | "replies">): Promise<RecordedRequest["body"]> {
  server.setHandler(c.replies);
  server.requests.length = 0;
  const [name, adapter] = c.adapter();
  const session = new Session({
    profile: c.profile(),
    environment: env,
    client: new Client({ providers: { [name]: adapter } }),
  });
  await session.submit("What does report.pdf say about revenue?");
  await session.close();
  expect(server.requests).toHaveLength(2);
  expect(server.violations).toEqual([]);
  return server.requests[1]!.body;
}

describe("the PDF in the session's next request", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const body = await run(c);
      expect(marked(c.result(body))).toEqual(c.expected);
      // The document goes instead of the extracted text, not beside it.
      expect(JSON.stringify(body)).not.toContain("Revenue grew by 12 percent.");
    });
  }

  it("an OpenAI-compatible server gets the extracted text", async () => {
    const body = await run({
      profile: () => createOpenAICompatibleProfile("qwen3:8b"),
      adapter: () => [
        "openai-compatible",
        new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {} }),
      ],
      replies: [
        chunkReply({
          id: "c1",
          calls: [{ id: "call_1", name: "read_file", args: JSON.stringify(readCall) }],
          finish: "tool_calls",
        }),
        chunkReply({ id: "c2", content: "Revenue grew.", finish: "stop" }),
      ],
    });
    const tool = body.messages.find((m: { role: string }) => m.role === "tool");
    expect(tool.content).toContain("--- Page 1 ---\nQuarterly report\nRevenue grew by 12 percent.");
    expect(JSON.stringify(body)).not.toContain(reportBase64);
  });
});
