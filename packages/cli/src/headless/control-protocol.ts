import { createInterface } from "node:readline";
import { type Runtime, toPermissionMode } from "@attractor/runtime";
import type { ControlChannel } from "../claude-sdk/control-channel.js";
import type { SdkMcpServers } from "../claude-sdk/sdk-mcp-servers.js";
import type { TextSink } from "./printers.js";
import { userMessageText } from "./stdin-messages.js";

/** One `control_request` line of Claude Code's stream-json input. */
export interface ControlRequest {
  readonly request_id: string;
  readonly request: { readonly subtype?: unknown; readonly [key: string]: unknown };
}

/** What the responder needs of the client connection besides the runtime. */
export interface ControlConnection {
  /** Requests from attractor to the client (can_use_tool, hook_callback, mcp_message). */
  readonly channel?: ControlChannel;
  /** The client's in-process MCP servers. */
  readonly servers?: SdkMcpServers;
  /** Whether the first line's initialize was already read and answered (before the runtime). */
  readonly initialized?: boolean;
}

/** Writes a `control_response` line answering request `requestId`. */
export function writeControlResponse(
  stdout: TextSink,
  requestId: string,
  outcome: { error: string } | { response: Record<string, unknown> },
): void {
  stdout.write(
    `${JSON.stringify({
      type: "control_response",
      response:
        "error" in outcome
          ? { subtype: "error", request_id: requestId, error: outcome.error }
          : { subtype: "success", request_id: requestId, response: outcome.response },
    })}\n`,
  );
}

/** The answer to `initialize`: attractor has no slash commands, output styles or model list to offer. */
export const INITIALIZE_RESPONSE: Readonly<Record<string, unknown>> = {
  commands: [],
  output_style: "default",
  available_output_styles: ["default"],
  models: [],
};

/**
 * Answers the control requests of Claude Code's stream-json protocol that arrive while the run
 * goes on: `interrupt`, `set_permission_mode`, `set_model`, `mcp_message` (a message an
 * in-process server sends us) and a late `initialize`. Hooks and in-process servers can only be
 * registered by the first line's initialize (they are wired when the runtime is built): a later
 * one asking for them is refused by name, never accepted and then ignored.
 */
export function controlResponder(
  runtime: Runtime,
  stdout: TextSink,
  stderr: TextSink,
  connection: ControlConnection = {},
) {
  const reply = (requestId: string, outcome: { error: string } | { response: Record<string, unknown> }) =>
    writeControlResponse(stdout, requestId, outcome);
  return async ({ request_id: id, request }: ControlRequest): Promise<void> => {
    switch (request.subtype) {
      case "initialize": {
        const callbacks = [
          ...(request.hooks && Object.keys(request.hooks as object).length > 0 ? ["hook callbacks"] : []),
          ...(Array.isArray(request.sdkMcpServers) && request.sdkMcpServers.length > 0
            ? ["in-process MCP servers (sdkMcpServers)"]
            : []),
        ];
        if (callbacks.length > 0)
          return reply(id, {
            error: `attractor takes ${callbacks.join(" and ")} only from an initialize sent as the first line of input`,
          });
        if (connection.initialized) stderr.write("attractor: initialize: sent again; answered as before\n");
        return reply(id, { response: { ...INITIALIZE_RESPONSE } });
      }
      case "interrupt":
        // A permission question waiting for the client is answered "no" by the interruption.
        connection.channel?.cancelAll("cancelled");
        await runtime.interrupt();
        return reply(id, { response: {} });
      case "set_permission_mode": {
        const mode = typeof request.mode === "string" ? toPermissionMode(request.mode) : undefined;
        if (mode === undefined)
          return reply(id, { error: `unknown permission mode ${JSON.stringify(request.mode)}` });
        runtime.setMode(mode);
        return reply(id, { response: {} });
      }
      case "set_model":
        if (typeof request.model !== "string") return reply(id, { error: "set_model needs a model" });
        runtime.setModel(request.model);
        return reply(id, { response: {} });
      case "mcp_message": {
        const server = typeof request.server_name === "string" ? request.server_name : "";
        if (!connection.servers?.deliver(server, request.message))
          return reply(id, {
            error: `mcp_message: no connection to an in-process MCP server named ${JSON.stringify(server)}`,
          });
        return reply(id, { response: { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } } });
      }
      default:
        return reply(id, {
          error: `attractor does not support the ${JSON.stringify(request.subtype)} control request yet`,
        });
    }
  };
}

/** The first line of the input, when it is an `initialize` control request. */
export interface FirstInitialize {
  readonly requestId: string;
  readonly request: Readonly<Record<string, unknown>>;
}

/** Stream-json input read line by line: the first line may be taken ahead, the rest as a run's messages. */
export interface StreamJsonInput {
  /**
   * Waits for the first non-blank line: an `initialize` control request is taken and returned
   * (the program's hooks and servers are known before the runtime is built); anything else stays
   * for `messages`. Undefined when the input ends first or the first line is not initialize.
   */
  initialize(): Promise<FirstInitialize | undefined>;
  /**
   * Control requests are answered as they arrive (so an interrupt reaches a running turn),
   * control responses go to `channel`, user messages are yielded in order. Other lines are
   * reported on `stderr` with their line number and skipped. When the input ends, `channel`
   * closes (a pending question is answered "no") and the messages end.
   */
  messages(
    control: (request: ControlRequest) => Promise<void>,
    channel?: ControlChannel,
  ): AsyncGenerator<string>;
}

/** Opens `input` as stream-json input; lines are buffered until read. */
export function openStreamJsonInput(input: NodeJS.ReadableStream, stderr: TextSink): StreamJsonInput {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const buffered: { raw: string; number: number }[] = [];
  let handle: ((raw: string, number: number) => void) | undefined;
  let ended = false;
  let onEnd: (() => void) | undefined;
  let wake: (() => void) | undefined;
  let number = 0;
  lines.on("line", (raw) => {
    number++;
    if (raw.trim() === "") return;
    if (handle) handle(raw, number);
    else buffered.push({ raw, number });
    wake?.();
  });
  lines.on("close", () => {
    ended = true;
    onEnd?.();
    wake?.();
  });
  const sleep = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    }).then(() => {
      wake = undefined;
    });

  return {
    async initialize() {
      while (buffered.length === 0 && !ended) await sleep();
      const first = buffered[0];
      if (!first) return undefined;
      let value: { type?: unknown; request_id?: unknown; request?: { subtype?: unknown } } | undefined;
      try {
        value = JSON.parse(first.raw);
      } catch {
        return undefined;
      }
      if (
        value?.type !== "control_request" ||
        typeof value.request_id !== "string" ||
        typeof value.request !== "object" ||
        value.request === null ||
        value.request.subtype !== "initialize"
      )
        return undefined;
      buffered.shift();
      return { requestId: value.request_id, request: value.request as Record<string, unknown> };
    },
    messages(control, channel) {
      // Lines are handled from now on, before the first message is asked for: the answers to
      // attractor's own requests (in-process MCP servers connecting) must not wait for a turn.
      const queue: string[] = [];
      handle = (raw, lineNumber) => {
        const warn = (message: string) => stderr.write(`warning: stdin line ${lineNumber}: ${message}\n`);
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch (error) {
          warn(`not JSON (${error instanceof Error ? error.message : String(error)}); skipped`);
          return;
        }
        const line = value as { type?: unknown; request_id?: unknown; request?: unknown };
        if (
          line?.type === "control_request" &&
          typeof line.request_id === "string" &&
          typeof line.request === "object" &&
          line.request !== null
        ) {
          control(line as ControlRequest).catch((error: unknown) =>
            warn(`control request failed: ${error instanceof Error ? error.message : String(error)}`),
          );
          return;
        }
        if (line?.type === "control_response") {
          if (!channel?.receive(line)) warn("a control_response that answers no pending request; skipped");
          return;
        }
        // attractor answers the client's requests at once: there is nothing to cancel.
        if (line?.type === "keep_alive" || line?.type === "control_cancel_request") return;
        const text = userMessageText(value, warn);
        if (text !== undefined) queue.push(text);
      };
      for (const { raw, number: n } of buffered.splice(0)) handle(raw, n);
      // The client went away: whatever it was asked is answered "no" at once, not waited for.
      onEnd = () => channel?.close();
      if (ended) onEnd();
      return (async function* () {
        while (true) {
          const next = queue.shift();
          if (next !== undefined) {
            yield next;
            continue;
          }
          if (ended) return;
          await sleep();
        }
      })();
    },
  };
}
