import { isAbsolute } from "node:path";
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { preloadProvider } from "@attractor/llm";
import type { RuntimeOptions } from "@attractor/runtime";
import { KEY_VARIABLES, typedText } from "@attractor/runtime";
import type { McpRunOptions } from "@attractor/runtime/mcp";
import { clientEnvironment, type RecordingEnvironment } from "./client-environment.js";
import { CONFIG_OPTION_IDS, configOptions } from "./config-options.js";
import { ACP_ERROR, authMethods, keyIsSet, requestError } from "./errors.js";
import { modeState } from "./modes.js";
import { AcpSession, type EditorLink, editorUi } from "./session.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The runtime settings every session of the connection shares (the command line's flags). */
export type SessionDefaults = Omit<
  RuntimeOptions,
  "projectDir" | "ui" | "mcp" | "wrapEnvironment" | "resume"
>;

export interface AcpAgentOptions {
  readonly version: string;
  /** Where the agent was started: the project session/list lists when the editor names none. */
  readonly cwd: string;
  readonly env: Env;
  readonly defaults: SessionDefaults;
  /** `--mcp-config` files or JSON given on the command line, added to every session's servers. */
  readonly mcpConfig: readonly string[];
  /** `--strict-mcp-config`: only those servers and the editor's, none from settings or the project. */
  readonly strictMcpConfig?: boolean;
  readonly log: (message: string) => void;
}

/**
 * The attractor agent as an ACP app: each session is a runtime over the editor's cwd (created
 * as the terminal UI creates one), with the editor's MCP servers merged into the project's.
 * The returned `closeAll` closes every session's runtime (transcripts flushed).
 */
export function createAcpAgent(options: AcpAgentOptions): {
  readonly app: AgentApp;
  readonly closeAll: () => Promise<void>;
} {
  const sessions = new Map<string, AcpSession>();
  let client: ClientCapabilities = {};
  const app = agent({ name: "attractor" });
  /** The connection's own context: what sessions call the editor through long after session/new. */
  let connection: AgentContext | undefined;
  app.onConnect((opened) => {
    connection = opened.client;
  });

  const session = (id: string): AcpSession => {
    const found = sessions.get(id);
    if (!found)
      throw new RequestError(
        ACP_ERROR.resourceNotFound,
        `No session ${id} in this connection: create one with session/new or load it with session/load.`,
      );
    return found;
  };

  const open = async (
    requestContext: AgentContext,
    request: { readonly cwd: string; readonly mcpServers: readonly McpServer[]; readonly resume?: string },
  ): Promise<AcpSession> => {
    if (!isAbsolute(request.cwd))
      throw new RequestError(ACP_ERROR.invalidParams, `cwd must be an absolute path; got "${request.cwd}".`);
    const send = connection ?? requestContext;
    let created: AcpSession | undefined;
    let sessionId = "";
    let environment: RecordingEnvironment | undefined;
    const fs = client.fs;
    const { createRuntime } = await import("@attractor/runtime");
    const mcp = await mcpOptions(request.cwd, options, request.mcpServers);
    const runtime = await createRuntime({
      ...options.defaults,
      projectDir: request.cwd,
      ui: editorUi(() => created),
      env: options.env,
      ...(mcp !== undefined && { mcp }),
      ...(request.resume !== undefined && { resume: request.resume }),
      wrapEnvironment: (inner) => {
        environment = clientEnvironment(inner, {
          ...(fs?.readTextFile === true && {
            readTextFile: async (path: string) =>
              (await send.request("fs/read_text_file", { sessionId, path })).content,
          }),
          ...(fs?.writeTextFile === true && {
            writeTextFile: async (path: string, content: string) => {
              await send.request("fs/write_text_file", { sessionId, path, content });
            },
          }),
        });
        return environment;
      },
    });
    sessionId = runtime.session.id;
    created = new AcpSession(runtime, linkFor(send, options.log), environment);
    sessions.set(created.id, created);
    return created;
  };

  app
    .onRequest("initialize", ({ params }) => {
      client = params.clientCapabilities ?? {};
      warmUp(options);
      return {
        // Version 1 is the only one there is: an editor asking for a later one gets ours.
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {} },
        },
        authMethods: authMethods(),
        agentInfo: { name: "attractor", title: "attractor", version: options.version },
      };
    })
    .onRequest("authenticate", ({ params }) => {
      const method = authMethods().find((m) => m.id === params.methodId);
      if (!method)
        throw new RequestError(
          ACP_ERROR.invalidParams,
          `Unknown authentication method "${params.methodId}".`,
        );
      // Keys come from the environment: a method whose variable is set is done; otherwise say how to set it.
      if (keyIsSet(params.methodId, options.env)) return {};
      throw new RequestError(ACP_ERROR.authRequired, method.description ?? method.name);
    })
    .onRequest("session/new", async ({ params, client: send }) => {
      try {
        const created = await open(send, { cwd: params.cwd, mcpServers: params.mcpServers });
        // The commands and later updates follow the answer, once the editor knows the session.
        setTimeout(() => created.goLive(), 0);
        return {
          sessionId: created.id,
          modes: modeState(created.runtime.mode),
          configOptions: configOptions(created.runtime),
        };
      } catch (error) {
        throw requestError(error);
      }
    })
    .onRequest("session/load", async ({ params, client: send }) => {
      try {
        const existing = sessions.get(params.sessionId);
        if (existing) {
          sessions.delete(params.sessionId);
          await existing.close();
        }
        const loaded = await open(send, {
          cwd: params.cwd,
          mcpServers: params.mcpServers,
          resume: params.sessionId,
        });
        // The conversation streams before the answer, as the protocol asks.
        loaded.replayHistory();
        setTimeout(() => loaded.goLive(), 0);
        return {
          modes: modeState(loaded.runtime.mode),
          configOptions: configOptions(loaded.runtime),
        };
      } catch (error) {
        throw requestError(error);
      }
    })
    .onRequest("session/list", async ({ params }) => {
      const cwd = params.cwd ?? options.cwd;
      if (!isAbsolute(cwd))
        throw new RequestError(ACP_ERROR.invalidParams, `cwd must be an absolute path; got "${cwd}".`);
      const [{ createSessionStore }, { attractorHome }] = await Promise.all([
        import("@attractor/runtime/store"),
        import("@attractor/runtime/config"),
      ]);
      const store = createSessionStore({ home: attractorHome(options.env as NodeJS.ProcessEnv) });
      // Newest first, as the store lists them; every stored session of the project at once.
      const sessions = await store.list(cwd);
      return {
        sessions: sessions.map((s) => ({
          sessionId: s.sessionId,
          cwd: s.projectDir,
          updatedAt: s.updatedAt,
          ...(s.firstUserMessage !== undefined && { title: typedText(s.firstUserMessage).slice(0, 120) }),
        })),
      };
    })
    .onRequest("session/set_mode", ({ params }) => {
      session(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest("session/set_config_option", ({ params }) => {
      const target = session(params.sessionId);
      if (typeof params.value !== "string")
        throw new RequestError(
          ACP_ERROR.invalidParams,
          `Config option "${params.configId}" takes a value id.`,
        );
      if (params.configId === CONFIG_OPTION_IDS.mode) target.setMode(params.value);
      else if (params.configId === CONFIG_OPTION_IDS.model) {
        try {
          target.runtime.setModel(params.value);
        } catch (error) {
          throw requestError(error);
        }
      } else throw new RequestError(ACP_ERROR.invalidParams, `Unknown config option "${params.configId}".`);
      return { configOptions: configOptions(target.runtime) };
    })
    .onRequest("session/prompt", async ({ params }) => {
      const target = session(params.sessionId);
      try {
        return await target.prompt(params.prompt);
      } catch (error) {
        throw requestError(error);
      }
    })
    .onNotification("session/cancel", async ({ params }) => {
      // A notification has no answer to carry an error: a failed interrupt is logged.
      await sessions
        .get(params.sessionId)
        ?.cancel()
        .catch((error: unknown) =>
          options.log(`cancel failed: ${error instanceof Error ? error.message : String(error)}`),
        );
    });

  return {
    app,
    closeAll: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((s) => s.close()));
    },
  };
}

/**
 * Loads, while the editor is still setting up, what the first session will need: the runtime's
 * code, and the provider's SDK when the flags or the environment name one provider only (a
 * guess that settings may override, so it is only made when it is the sole candidate).
 */
function warmUp(options: AcpAgentOptions): void {
  void import("@attractor/runtime").catch(() => {});
  const keyed = Object.keys(KEY_VARIABLES).filter((provider) => keyIsSet(provider, options.env));
  const provider = options.defaults.provider ?? (keyed.length === 1 ? keyed[0] : undefined);
  if (provider !== undefined) void preloadProvider(provider).catch(() => {});
}

/** The session's way to the editor over the connection's client context. */
function linkFor(send: AgentContext, log: (message: string) => void): EditorLink {
  return {
    update: (sessionId, update) => {
      send.notify("session/update", { sessionId, update }).catch(() => {});
    },
    requestPermission: (request) => send.request("session/request_permission", request),
    log,
  };
}

/** The editor's MCP servers in the configuration-file form attractor reads (`mcpServers`). */
function editorServers(servers: readonly McpServer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const server of servers) {
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      out[server.name] = {
        type: server.type,
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
      };
    } else if ("command" in server) {
      out[server.name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
      };
    }
  }
  return out;
}

/**
 * The session's MCP servers: the user's and the project's (approved ones only, as everywhere),
 * plus those of the command line and the editor, which the user configured themselves.
 */
async function mcpOptions(
  cwd: string,
  options: AcpAgentOptions,
  servers: readonly McpServer[],
): Promise<McpRunOptions | undefined> {
  const { mcpRunOptions } = await import("@attractor/runtime/mcp");
  const fromEditor = editorServers(servers);
  return mcpRunOptions({
    projectDir: cwd,
    cwd,
    env: options.env,
    configFiles: [
      ...options.mcpConfig,
      ...(Object.keys(fromEditor).length > 0 ? [JSON.stringify({ mcpServers: fromEditor })] : []),
    ],
    strict: options.strictMcpConfig ?? false,
  });
}
