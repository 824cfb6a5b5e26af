import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { listModels } from "@attractor/llm";

/** The id of the model selector among the session's config options. */
export const MODEL_OPTION_ID = "model";

/**
 * The session's config options: the model, chosen among the catalog's models of the session's
 * provider (the current one included even when the catalog does not list it).
 */
export function configOptions(provider: string, current: string): SessionConfigOption[] {
  const models = listModels(provider).map((m) => ({
    value: m.id,
    name: m.displayName,
    description: `${Math.round(m.contextWindow / 1000)}k context${m.supportsVision ? ", images" : ""}`,
  }));
  const known = models.some((m) => m.value === current);
  return [
    {
      id: MODEL_OPTION_ID,
      name: "Model",
      description: `The ${provider} model answering in this session`,
      category: "model",
      type: "select",
      currentValue: current,
      options: known ? models : [{ value: current, name: current }, ...models],
    },
  ];
}
