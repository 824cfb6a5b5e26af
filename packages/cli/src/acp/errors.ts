import { type AuthMethod, RequestError } from "@agentclientprotocol/sdk";
import { KEY_VARIABLES } from "@attractor/runtime";
import { adviceFor, type FailureContext } from "../tui/transcript/error-advice.js";

/** JSON-RPC error codes ACP uses beside the standard ones. */
export const ACP_ERROR = {
  invalidParams: -32602,
  internal: -32603,
  authRequired: -32000,
  resourceNotFound: -32002,
} as const;

/** The API-key methods: one per keyed provider, naming the variables it reads. */
export function authMethods(): AuthMethod[] {
  return Object.entries(KEY_VARIABLES).map(([provider, variables]) => ({
    id: `env:${provider}`,
    name: `${provider} API key`,
    description: `Set ${variables.join(" or ")} in the environment the editor starts attractor with (its agent server "env"), then restart the agent.`,
  }));
}

/** Whether the variable an API-key method names is set in `env`. */
export function keyIsSet(methodId: string, env: Readonly<Record<string, string | undefined>>): boolean {
  const provider = methodId.replace(/^env:/, "");
  const variables = Object.hasOwn(KEY_VARIABLES, provider)
    ? KEY_VARIABLES[provider as keyof typeof KEY_VARIABLES]
    : [];
  return variables.some((name) => (env[name] ?? "").trim() !== "");
}

/**
 * A failure as the JSON-RPC error an editor shows: configuration problems (no key, unknown
 * model, bad settings) with what to change, anything else as an internal error with its message.
 */
export function requestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (!(error instanceof Error)) return new RequestError(ACP_ERROR.internal, String(error));
  const hint = (error as { hint?: unknown }).hint;
  const message = typeof hint === "string" ? `${error.message}\n${hint}` : error.message;
  switch (error.name) {
    case "NoProviderError":
      return new RequestError(ACP_ERROR.authRequired, message, { kind: "no_provider" });
    case "SessionSelectionError":
      return new RequestError(ACP_ERROR.resourceNotFound, message);
    case "ConfigurationError":
    case "SettingsError":
    case "McpConfigFileError":
      return new RequestError(ACP_ERROR.invalidParams, message);
    default:
      return new RequestError(ACP_ERROR.internal, message);
  }
}

/** A model error that ended a turn, as the prompt's JSON-RPC error with the terminal's advice. */
export function turnError(
  data: { readonly message: string; readonly errorName: string; readonly statusCode?: number },
  context: FailureContext,
): RequestError {
  const advice = adviceFor(data, context);
  const message = `The model request failed: ${data.message}${advice !== undefined ? `\n${advice}` : ""}`;
  const code =
    data.errorName === "AuthenticationError" || data.statusCode === 401
      ? ACP_ERROR.authRequired
      : data.errorName === "NotFoundError" || data.statusCode === 404
        ? ACP_ERROR.invalidParams
        : ACP_ERROR.internal;
  return new RequestError(code, message, {
    errorName: data.errorName,
    ...(data.statusCode !== undefined && { statusCode: data.statusCode }),
  });
}
