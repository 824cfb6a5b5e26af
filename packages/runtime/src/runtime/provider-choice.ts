import { defaultModel, getModelInfo } from "@attractor/llm";
import { ConfigurationError, NoProviderError } from "./errors.js";

import { isProviderName, PROVIDERS, type ProviderName } from "./provider-names.js";

export { isProviderName, PROVIDERS, type ProviderName };

type Env = Readonly<Record<string, string | undefined>>;

/** The provider, model and base URL a run uses. */
export interface ModelChoice {
  readonly provider: ProviderName;
  readonly model: string;
  /** Set when given by flag or settings; otherwise the adapter reads its environment variable. */
  readonly baseUrl?: string;
}

/** What the user asked for, by flag or settings file. */
export interface ModelRequest {
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
}

/** Environment variables holding each keyed provider's API key, in the order auto-detection tries them. */
export const KEY_VARIABLES: Readonly<Record<Exclude<ProviderName, "openai-compatible">, readonly string[]>> =
  {
    anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    openai: ["OPENAI_API_KEY"],
    gemini: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  };

const AUTO_ORDER = ["anthropic", "openai", "gemini"] as const;

/** Environment variables naming a provider's model, as other agents read them (flags and settings win). */
export const MODEL_VARIABLES: Readonly<Record<ProviderName, string | undefined>> = {
  anthropic: "ANTHROPIC_MODEL",
  openai: "OPENAI_MODEL",
  gemini: "GEMINI_MODEL",
  "openai-compatible": undefined,
};

const set = (env: Env, name: string) => (env[name] ?? "").trim() !== "";

/** The message shown when no provider is configured at all. */
export function noProviderMessage(): string {
  return [
    "No model provider is configured. Set the API key of one provider:",
    "  ANTHROPIC_API_KEY   Anthropic (Claude); ANTHROPIC_AUTH_TOKEN for a bearer token",
    "  OPENAI_API_KEY      OpenAI",
    "  GEMINI_API_KEY      Google Gemini (GOOGLE_API_KEY works too)",
    "or point attractor at a local OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp):",
    "  attractor --provider openai-compatible --base-url http://localhost:11434/v1 --model qwen3:8b",
    "  (or set OPENAI_COMPATIBLE_BASE_URL instead of --base-url)",
  ].join("\n");
}

/**
 * Picks provider and model: flags over settings over the environment. Without a provider, the
 * model's catalog provider, else the first provider whose key is set (Anthropic, OpenAI, Gemini),
 * else openai-compatible when a base URL for it is set. Throws ConfigurationError (NoProviderError
 * when nothing at all is configured) with a message naming what to set.
 */
export function resolveModelChoice(
  flags: ModelRequest,
  settings: ModelRequest,
  env: Env,
  /** The caller brings its own model client: no key is needed, and Anthropic is the default. */
  ownClient = false,
): ModelChoice {
  const requested = flags.provider ?? settings.provider;
  if (requested !== undefined && !isProviderName(requested)) {
    throw new ConfigurationError(
      `Unknown provider "${requested}" (${flags.provider !== undefined ? "--provider" : "settings"}); choose one of ${PROVIDERS.join(", ")}.`,
    );
  }
  // A settings model or base URL written for another provider does not follow a --provider switch.
  const settingsApply = settings.provider === undefined || settings.provider === requested;
  const model = flags.model ?? (settingsApply ? settings.model : undefined);
  const baseUrl = flags.baseUrl ?? (settingsApply ? settings.baseUrl : undefined);
  const compatibleUrl = baseUrl ?? nonEmpty(env.OPENAI_COMPATIBLE_BASE_URL);

  let provider: ProviderName | undefined = requested;
  if (provider === undefined && model !== undefined) {
    const catalogProvider = getModelInfo(model)?.provider;
    if (catalogProvider !== undefined && isProviderName(catalogProvider)) provider = catalogProvider;
  }
  if (provider === undefined) provider = AUTO_ORDER.find((p) => KEY_VARIABLES[p].some((v) => set(env, v)));
  if (provider === undefined && compatibleUrl !== undefined) provider = "openai-compatible";
  if (provider === undefined && ownClient) provider = "anthropic";
  const modelVariable = provider !== undefined ? MODEL_VARIABLES[provider] : undefined;
  const envModel =
    model === undefined && modelVariable !== undefined ? nonEmpty(env[modelVariable]) : undefined;
  if (envModel !== undefined)
    return resolveModelChoice({ ...flags, provider, model: envModel }, settings, env, ownClient);
  if (provider === undefined) {
    throw new NoProviderError(
      [
        ...KEY_VARIABLES.anthropic,
        ...KEY_VARIABLES.openai,
        ...KEY_VARIABLES.gemini,
        "OPENAI_COMPATIBLE_BASE_URL",
      ],
      noProviderMessage(),
    );
  }

  if (provider === "openai-compatible") {
    if (compatibleUrl === undefined) {
      throw new ConfigurationError(
        "The openai-compatible provider needs the server's URL: pass --base-url (e.g. http://localhost:11434/v1 for Ollama) or set OPENAI_COMPATIBLE_BASE_URL.",
      );
    }
    if (model === undefined) {
      throw new ConfigurationError(
        'The openai-compatible provider needs a model name: pass --model with a model your server serves (e.g. --model qwen3:8b), or set "model" in settings.json.',
      );
    }
    return { provider, model, baseUrl: compatibleUrl };
  }

  const keys = KEY_VARIABLES[provider];
  if (!ownClient && !keys.some((v) => set(env, v))) {
    throw new ConfigurationError(`The ${provider} provider needs an API key: set ${keys.join(" or ")}.`);
  }
  const chosenModel = model ?? defaultModel(provider)?.id;
  if (chosenModel === undefined) {
    throw new ConfigurationError(`No default model is known for ${provider}; pass --model.`);
  }
  const known = getModelInfo(chosenModel);
  if (known !== undefined && known.provider !== provider) {
    throw new ConfigurationError(
      `The model "${chosenModel}" belongs to ${known.provider}, not ${provider}; pass --provider ${known.provider} or another --model.`,
    );
  }
  return { provider, model: chosenModel, ...(baseUrl !== undefined && { baseUrl }) };
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}
