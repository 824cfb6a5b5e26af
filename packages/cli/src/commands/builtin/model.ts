import { listModels, type ModelInfo } from "@attractor/llm";
import type { Choice, SlashCommand } from "../types.js";

/**
 * /model [id]: switches to the model given, or, without one, offers the catalog's models of the
 * session's provider in a picker (the current one highlighted); where nothing can be picked it
 * shows the current model.
 */
export const modelCommand: SlashCommand = {
  name: "model",
  args: "[id]",
  summary: "Pick or change the model",
  idleOnly: true,
  async run({ runtime, host }, args) {
    let model = args.trim();
    if (model === "") {
      const models = listModels(runtime.provider);
      if (models.length === 0) {
        host.show({
          kind: "text",
          tone: "info",
          text: `Model: ${runtime.model} (${runtime.provider}); the catalog lists no models of ${runtime.provider}, so give one: /model <id>`,
        });
        return;
      }
      const current = models.findIndex((m) => m.id === runtime.model || m.aliases.includes(runtime.model));
      const picked = await host.choose(
        `Model for this session (now ${runtime.model}, ${runtime.provider})`,
        models.map((m) => modelChoice(m, m === models[current])),
        { initialIndex: Math.max(0, current) },
      );
      if (picked === undefined) {
        host.show({ kind: "text", tone: "info", text: `Model unchanged: ${runtime.model}` });
        return;
      }
      model = picked;
    }
    runtime.setModel(model);
    host.show({ kind: "text", tone: "success", text: `Model: ${runtime.model}` });
  },
};

/** A picker row: the id, then what tells models apart (context, price, images, current). */
function modelChoice(model: ModelInfo, current: boolean): Choice<string> {
  const facts = [
    model.displayName !== model.id ? model.displayName : undefined,
    `${Math.round(model.contextWindow / 1000)}k context`,
    model.inputCostPerMillion !== undefined && model.outputCostPerMillion !== undefined
      ? `$${model.inputCostPerMillion}/$${model.outputCostPerMillion} per M`
      : undefined,
    model.supportsVision ? "images" : undefined,
    current ? "current" : undefined,
  ].filter((f) => f !== undefined);
  return { label: model.id, detail: facts.join(" · "), value: model.id };
}
