// Embeds an agent Session in a program and prints its events as they arrive.
// Run after `npm run build`:
//   node examples/embed-session.mjs "List the files here and say what this project is" [working-dir]
// The provider is the first of ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY (or
// GOOGLE_API_KEY) that is set; ATTRACTOR_MODEL picks another model. Ctrl-C interrupts the running
// task (the session stays usable); a second Ctrl-C closes the session.
import {
  createAnthropicProfile,
  createGeminiProfile,
  createOpenAIProfile,
  LocalExecutionEnvironment,
  Session,
} from "@attractor/agent";
import { Client, defaultModel } from "@attractor/llm";

const PROVIDERS = [
  { name: "anthropic", keys: ["ANTHROPIC_API_KEY"], createProfile: createAnthropicProfile },
  { name: "openai", keys: ["OPENAI_API_KEY"], createProfile: createOpenAIProfile },
  { name: "gemini", keys: ["GEMINI_API_KEY", "GOOGLE_API_KEY"], createProfile: createGeminiProfile },
];

const provider = PROVIDERS.find((p) => p.keys.some((k) => process.env[k]));
if (!provider) {
  console.error("No API key found: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY and run again.");
  process.exit(2);
}
const task =
  process.argv[2] ?? "List the files in the working directory and say in two sentences what this project is.";
const model = process.env.ATTRACTOR_MODEL ?? defaultModel(provider.name)?.id;
if (!model) {
  console.error(`No default model known for ${provider.name}; set ATTRACTOR_MODEL.`);
  process.exit(2);
}

const client = Client.fromEnv();
const environment = new LocalExecutionEnvironment({ workingDirectory: process.argv[3] ?? process.cwd() });
const session = new Session({
  profile: provider.createProfile(model),
  environment,
  client,
  config: { maxToolRoundsPerInput: 25 },
});

let interrupts = 0;
process.on("SIGINT", () => {
  interrupts++;
  if (interrupts === 1) void session.interrupt();
  else void session.close();
});

const oneLine = (text, max = 100) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** Prints each event: streamed text as it comes, tool calls and the rest one line each. */
async function printEvents() {
  let midLine = false;
  const line = (text) => {
    if (midLine) process.stdout.write("\n");
    midLine = false;
    console.log(text);
  };
  for await (const event of session.events()) {
    const d = event.data;
    switch (event.kind) {
      case "assistant_text_delta":
        if (d.channel === "text") {
          process.stdout.write(d.delta);
          midLine = !d.delta.endsWith("\n");
        }
        break;
      case "assistant_text_start":
      case "tool_call_output_delta":
        break;
      case "tool_call_start":
        line(`→ ${d.toolName} ${oneLine(JSON.stringify(d.arguments))}`);
        break;
      case "tool_call_end":
        line(
          `← ${d.toolName}${d.isError ? " (error)" : ""}: ${oneLine(d.output)} [${d.output.length} chars, ${d.durationMs} ms]`,
        );
        break;
      case "assistant_text_end":
        if (midLine) process.stdout.write("\n");
        midLine = false;
        break;
      case "session_start":
        line(`[session_start] ${d.provider} ${d.model} in ${d.workingDirectory}`);
        break;
      case "processing_end":
        line(
          `[processing_end] ${d.reason}, ${d.toolRounds} tool rounds, ${d.usage.inputTokens} in / ${d.usage.outputTokens} out tokens`,
        );
        break;
      default:
        line(`[${event.kind}] ${oneLine(JSON.stringify(d), 160)}`);
    }
  }
}

const printing = printEvents();
await session.submit(task);
await session.close();
await printing;
await client.close();
