import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { listModels } from "@attractor/llm";
import type { PermissionMode } from "@attractor/runtime/permissions";
import { modeState } from "./modes.js";

/** The ids of the session's config options. */
export const CONFIG_OPTION_IDS = { mode: "mode", model: "model" } as const;

/** What the options describe. */
export interface ConfigState {
  readonly provider: string;
  readonly model: string;
  readonly mode: PermissionMode;
}

/**
 * The session's config options: the permission mode (the same choice as the session's modes,
 * for clients that use config options instead) and the model, chosen among the catalog's models
 * of the session's provider (the current one included even when the catalog does not list it).
 */
export function configOptions(state: ConfigState): SessionConfigOption[] {
  const modes = modeState(state.mode);
  const models = listModels(state.provider).map((m) => ({
    value: m.id,
    name: m.displayName,
    description: `${Math.round(m.contextWindow / 1000)}k context${m.supportsVision ? ", images" : ""}`,
  }));
  const known = models.some((m) => m.value === state.model);
  return [
    {
      id: CONFIG_OPTION_IDS.mode,
      name: "Mode",
      description: "What the agent may do without asking",
      category: "mode",
      type: "select",
      currentValue: modes.currentModeId,
      options: modes.availableModes.map((m) => ({
        value: m.id,
        name: m.name,
        ...(m.description != null && { description: m.description }),
      })),
    },
    {
      id: CONFIG_OPTION_IDS.model,
      name: "Model",
      description: `The ${state.provider} model answering in this session`,
      category: "model",
      type: "select",
      currentValue: state.model,
      options: known ? models : [{ value: state.model, name: state.model }, ...models],
    },
  ];
}
