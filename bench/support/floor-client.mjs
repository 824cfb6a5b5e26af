// The least a client can do per tool round, as the floor of bench/round-overhead.mjs: one
// node:http request per round to an Anthropic Messages server, the SSE reply parsed, the asked
// file read with readFile, and the next request with the whole conversation so far.
// Usage: node floor-client.mjs <base-url> <working-directory> [<bodies.json>]
// With <bodies.json> (a JSON array of request bodies another client sent in the same rounds), the
// client sends those requests instead of its own small ones: each round it still parses the reply,
// reads the asked file and serializes the next body (JSON.stringify of the recorded request, the
// same bytes), so what it spends is a bare client's cost for requests of the same size and shape.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:http";
import { resolve } from "node:path";

const [base, cwd, bodiesFile] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true });
const tools = [
  {
    name: "read_file",
    description: "Read a file.",
    input_schema: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
  },
];
const messages = [{ role: "user", content: "read the files" }];
// Parsed once before the first request, so start-up and not the rounds pays for it.
const recorded = bodiesFile && JSON.parse(readFileSync(bodiesFile, "utf8")).map((b) => JSON.parse(b));

/** Sends request `n`; resolves with the reply's tool call, if any. */
function ask(n) {
  const body = recorded
    ? JSON.stringify(recorded[n])
    : JSON.stringify({ model: "m", max_tokens: 1024, stream: true, tools, messages });
  return new Promise((done, fail) => {
    const req = request(
      `${base}/v1/messages`,
      { method: "POST", agent, headers: { "content-type": "application/json" } },
      (res) => {
        res.setEncoding("utf8");
        let buffered = "";
        let call;
        let json = "";
        res.on("data", (chunk) => {
          buffered += chunk;
          let end = buffered.indexOf("\n\n");
          while (end >= 0) {
            const frame = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            end = buffered.indexOf("\n\n");
            const data = frame.slice(frame.indexOf("data: ") + 6);
            const event = JSON.parse(data);
            if (event.type === "content_block_start" && event.content_block.type === "tool_use")
              call = { id: event.content_block.id, name: event.content_block.name };
            else if (event.type === "content_block_delta" && event.delta.type === "input_json_delta")
              json += event.delta.partial_json;
          }
        });
        res.on("end", () => done(call && { ...call, input: JSON.parse(json) }));
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

for (let n = 0; ; n++) {
  const call = await ask(n);
  if (!call) break;
  const content = await readFile(resolve(cwd, call.input.file_path ?? call.input.path), "utf8");
  messages.push({ role: "assistant", content: [{ type: "tool_use", ...call }] });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content }] });
}
agent.destroy();
