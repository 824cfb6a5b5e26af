// A zero-latency Anthropic Messages server in a process of its own, so that what it spends
// receiving ever larger requests is not counted in the measured process: it answers the first
// ROUNDS requests with a call of TOOL ({ text }), the next with a final answer, and prints
// its port on stdout. Usage: node scripted-anthropic-server.mjs <rounds> <tool>
import { createServer } from "node:http";
import { anthropicReply } from "./anthropic-sse.mjs";

const rounds = Number(process.argv[2]);
const tool = process.argv[3] ?? "echo";
let served = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const n = served++;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(
      anthropicReply({
        n,
        model: "m",
        tool,
        args: n < rounds && { text: `n${n}` },
        text: "done",
        inputTokens: 100,
        outputTokens: 10,
      }),
    );
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
process.stdin.on("end", () => server.close());
process.stdin.resume();
