import type { SlashCommand } from "../types.js";

/** /tools: lists the tools the model is offered, with the first line of each description. */
export const toolsCommand: SlashCommand = {
  name: "tools",
  summary: "List the tools the model can use",
  async run({ runtime, host }) {
    const tools = runtime.session.profile.tools();
    host.show({
      kind: "list",
      title: `${tools.length} tools`,
      rows: tools.map((t) => ({ label: t.name, detail: firstSentence(t.description) })),
    });
  },
};

function firstSentence(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  const stop = line.search(/\.\s/);
  const sentence = stop > 0 ? line.slice(0, stop + 1) : line;
  return sentence.length > 90 ? `${sentence.slice(0, 89)}…` : sentence;
}
