import type { McpServerConfig, SubagentType } from "@attractor/agent";
import type { HookFunctionGroup, McpRunOptions, PermissionMode, RuntimeUi } from "@attractor/runtime";
import { type ControlChannel, createControlChannel } from "./control-channel.js";
import { readInitialize } from "./initialize.js";
import { sdkPermissionPrompt } from "./permission-prompt.js";
import { createSdkMcpServers, type SdkMcpServers } from "./sdk-mcp-servers.js";

/** What a run needs to serve a Claude Agent SDK client over stream-json. */
export interface SdkConnection {
  readonly channel: ControlChannel;
  readonly servers: SdkMcpServers;
  /** The run's front end: permission questions go to the client when it asked for them. */
  readonly ui: RuntimeUi;
  /** The system prompt options of the client's initialize. */
  readonly prompts: { readonly systemPrompt?: string; readonly appendSystemPrompt?: string };
  /** The client's `agents`: subagent types added to the project's. */
  readonly subagentTypes: readonly SubagentType[];
  /** The client's hook callbacks (its initialize's), each a `hook_callback` request. */
  readonly hookCallbacks: readonly HookFunctionGroup[];
  /** The run's MCP servers with the client's in-process ones added (and `--mcp-config` "sdk" entries wired). */
  mcp(base: McpRunOptions | undefined): McpRunOptions | undefined;
  /** Lets permission updates change the run's mode once the runtime exists. */
  onSetMode(setMode: (mode: PermissionMode) => void): void;
}

/**
 * Sets up the client side of the control protocol: the request channel (writing to `write`),
 * the in-process servers, the hook callbacks and (with `--permission-prompt-tool stdio`) the
 * permission prompt of the client's first-line `initialize` request.
 */
export function connectSdkClient(options: {
  readonly write: (line: string) => void;
  readonly warn: (message: string) => void;
  readonly initialize: Readonly<Record<string, unknown>> | undefined;
  readonly permissionPrompt: boolean;
  /** The headless front end (answers for ask_user; its permission answers are replaced). */
  readonly ui: RuntimeUi;
}): SdkConnection {
  const channel = createControlChannel(options.write);
  const servers = createSdkMcpServers(channel);
  const init = options.initialize ? readInitialize(options.initialize) : undefined;
  if (init && init.unhonoured.length > 0)
    options.warn(`initialize: not honoured: ${init.unhonoured.join(", ")}`);
  let setMode: ((mode: PermissionMode) => void) | undefined;
  const ask = sdkPermissionPrompt(channel, {
    setMode: (mode) => setMode?.(mode),
    warn: (message) => options.warn(`canUseTool: ${message}`),
  });
  const ui: RuntimeUi = options.permissionPrompt
    ? { ...options.ui, askPermission: ask, answersPermissions: true }
    : options.ui;
  const hookCallbacks: HookFunctionGroup[] = (init?.hooks ?? []).map((registered) => ({
    event: registered.event,
    ...(registered.matcher !== undefined && { matcher: registered.matcher }),
    ...(registered.timeout !== undefined && { timeout: registered.timeout }),
    hooks: registered.callbackIds.map(
      (callbackId) =>
        async (input: Readonly<Record<string, unknown>>, toolUseId: string | undefined, { signal }) =>
          (await channel.request(
            {
              subtype: "hook_callback",
              callback_id: callbackId,
              input,
              ...(toolUseId !== undefined && { tool_use_id: toolUseId }),
            },
            { signal },
          )) as unknown,
    ),
  }));
  return {
    channel,
    servers,
    ui,
    prompts: {
      ...(init?.systemPrompt !== undefined && { systemPrompt: init.systemPrompt }),
      ...(init?.appendSystemPrompt !== undefined && { appendSystemPrompt: init.appendSystemPrompt }),
    },
    hookCallbacks,
    subagentTypes: init?.agents ?? [],
    mcp(base) {
      const named = init?.sdkMcpServers ?? [];
      const listed = Object.entries(base?.servers ?? {});
      if (named.length === 0 && !listed.some(([, c]) => c.type === "sdk")) return base;
      const wired: Record<string, McpServerConfig> = {};
      for (const [name, config] of listed)
        wired[name] = config.type === "sdk" ? servers.config(name) : config;
      for (const name of named) wired[name] = servers.config(name);
      return { ...(base ?? {}), servers: wired };
    },
    onSetMode(next) {
      setMode = next;
    },
  };
}
