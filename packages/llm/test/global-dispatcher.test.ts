import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { type Request, userMessage } from "../src/types/index.js";

// Requests go over node:http, unless the program installed a dispatcher of its own with undici's
// setGlobalDispatcher (a proxy, a mock in its tests): then the platform fetch, which honours it,
// carries them.

const message = (text: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});
const hi: Request = { model: "claude-haiku-4-5", messages: [userMessage("hi")] };

let seen: IncomingHttpHeaders | undefined;
const server = createServer((req, res) => {
  seen = req.headers;
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(message("from the server")));
  });
});
let url = "";
const original = getGlobalDispatcher();
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  setGlobalDispatcher(original);
  server.close();
});

it("sends over node:http by default, and through a dispatcher the program set", async () => {
  const adapter = new AnthropicAdapter({ apiKey: "k", baseUrl: url, env: {} });
  const first = await adapter.complete(hi);
  expect(first.message.content).toEqual([{ kind: "text", text: "from the server" }]);
  // The platform fetch adds the browser's fetch metadata; node:http sends none.
  expect(seen?.["sec-fetch-mode"]).toBeUndefined();
  expect(seen?.["x-api-key"]).toBe("k");

  const mock = new MockAgent();
  mock.disableNetConnect();
  mock
    .get(url)
    .intercept({ path: "/v1/messages", method: "POST" })
    .reply(200, message("from the mock"), { headers: { "content-type": "application/json" } });
  setGlobalDispatcher(mock);
  seen = undefined;
  const mocked = await adapter.complete(hi);
  expect(mocked.message.content).toEqual([{ kind: "text", text: "from the mock" }]);
  expect(seen).toBeUndefined();
  await adapter.close();
});
