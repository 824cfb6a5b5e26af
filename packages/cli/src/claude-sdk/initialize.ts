import type { HookEventName, SubagentType } from "@attractor/agent";
import { HOOK_EVENTS } from "@attractor/runtime";

/** The callbacks the program registered for one event and matcher, by id. */
export interface SdkHookRegistration {
  readonly event: HookEventName;
  readonly matcher?: string;
  readonly callbackIds: readonly string[];
  /** Seconds each callback may take. */
  readonly timeout?: number;
}

/** What the Claude Agent SDK's `initialize` control request asks of the run. */
export interface SdkInitialize {
  /** The callbacks registered per event and matcher. */
  readonly hooks: readonly SdkHookRegistration[];
  /** The program's `agents`: subagent types the model may start by name. */
  readonly agents: readonly SubagentType[];
  /** The names of the program's in-process MCP servers. */
  readonly sdkMcpServers: readonly string[];
  /** `systemPrompt`: replaces the agent's own instructions (as `--system-prompt`). */
  readonly systemPrompt?: string;
  /** `appendSystemPrompt` (the SDK's preset with `append`): added at the end (as `--append-system-prompt`). */
  readonly appendSystemPrompt?: string;
  /** Fields and hook events given that attractor does not honour (named in a warning). */
  readonly unhonoured: readonly string[];
}

/** The initialize fields attractor reads; any other field given is named as not honoured. */
const READ = new Set([
  "subtype",
  "hooks",
  "sdkMcpServers",
  "sdkMcpServerManifests",
  "systemPrompt",
  "appendSystemPrompt",
  "agents",
]);

/** The program's `agents` ({name: {description, prompt, tools?, model?}}); a malformed one is named. */
function readAgents(agents: unknown, unhonoured: string[]): SubagentType[] {
  if (agents === null || typeof agents !== "object" || Array.isArray(agents)) return [];
  const types: SubagentType[] = [];
  for (const [name, value] of Object.entries(agents as Record<string, unknown>)) {
    const a = value as { description?: unknown; prompt?: unknown; tools?: unknown; model?: unknown } | null;
    if (typeof a?.description !== "string" || typeof a.prompt !== "string" || name.trim() === "") {
      unhonoured.push(`agents.${name} (needs a description and a prompt)`);
      continue;
    }
    const extra = Object.keys(a).filter((k) => !["description", "prompt", "tools", "model"].includes(k));
    for (const key of extra) unhonoured.push(`agents.${name}.${key}`);
    const tools = Array.isArray(a.tools)
      ? a.tools.filter((t): t is string => typeof t === "string")
      : undefined;
    types.push({
      name,
      description: a.description,
      prompt: a.prompt,
      ...(tools !== undefined && { tools }),
      ...(typeof a.model === "string" && { model: a.model }),
      file: "the Claude Agent SDK's agents option",
    });
  }
  return types;
}

/**
 * Reads an `initialize` request: `hooks` ({event: [{matcher, hookCallbackIds, timeout}]}) the
 * callbacks to run at each event, `sdkMcpServers` the in-process servers to connect through the
 * control channel.
 */
export function readInitialize(request: Readonly<Record<string, unknown>>): SdkInitialize {
  const unhonoured = Object.keys(request).filter((key) => !READ.has(key) && request[key] !== undefined);
  const registrations: SdkHookRegistration[] = [];
  const hooks = request.hooks;
  if (hooks !== null && typeof hooks === "object") {
    for (const [event, list] of Object.entries(hooks as Record<string, unknown>)) {
      if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
        unhonoured.push(`hooks.${event}`);
        continue;
      }
      for (const entry of Array.isArray(list) ? list : []) {
        const e = entry as { matcher?: unknown; hookCallbackIds?: unknown; timeout?: unknown };
        const ids = Array.isArray(e?.hookCallbackIds)
          ? e.hookCallbackIds.filter((id): id is string => typeof id === "string")
          : [];
        if (ids.length === 0) continue;
        const timeout = typeof e.timeout === "number" && e.timeout > 0 ? e.timeout : undefined;
        registrations.push({
          event: event as HookEventName,
          ...(typeof e.matcher === "string" && { matcher: e.matcher }),
          callbackIds: ids,
          ...(timeout !== undefined && { timeout }),
        });
      }
    }
  }
  const sdkMcpServers = Array.isArray(request.sdkMcpServers)
    ? request.sdkMcpServers.filter((name): name is string => typeof name === "string" && name !== "")
    : [];
  // The SDK sends the prompt as parts (`[""]` when the program sets none: nothing asked).
  const prompt = request.systemPrompt;
  const systemPrompt = (
    Array.isArray(prompt) ? prompt.filter((p) => typeof p === "string").join("\n\n") : prompt
  ) as unknown;
  const append = request.appendSystemPrompt;
  return {
    ...(typeof systemPrompt === "string" && systemPrompt.trim() !== "" && { systemPrompt }),
    ...(typeof append === "string" && append.trim() !== "" && { appendSystemPrompt: append }),
    hooks: registrations,
    agents: readAgents(request.agents, unhonoured),
    sdkMcpServers,
    unhonoured,
  };
}
