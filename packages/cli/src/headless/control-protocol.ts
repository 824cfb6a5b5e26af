import { createInterface } from "node:readline";
import type { Runtime } from "@attractor/runtime";
import { toPermissionMode } from "@attractor/runtime/permissions";
import type { TextSink } from "./printers.js";
import { userMessageText } from "./stdin-messages.js";

/** One `control_request` line of Claude Code's stream-json input. */
interface ControlRequest {
  readonly request_id: string;
  readonly request: { readonly subtype?: unknown; readonly [key: string]: unknown };
}

/**
 * Answers the control requests of Claude Code's stream-json protocol that attractor supports:
 * `initialize`, `interrupt`, `set_permission_mode`, `set_model`. The ones that need attractor to
 * call back into the client (hook callbacks, in-process MCP servers, can_use_tool) are refused
 * with an error response naming them, never accepted and then silently ignored.
 */
export function controlResponder(runtime: Runtime, stdout: TextSink, stderr: TextSink) {
  const reply = (
    requestId: string,
    outcome: { error: string } | { response: Record<string, unknown> },
  ): void => {
    stdout.write(
      `${JSON.stringify({
        type: "control_response",
        response:
          "error" in outcome
            ? { subtype: "error", request_id: requestId, error: outcome.error }
            : { subtype: "success", request_id: requestId, response: outcome.response },
      })}\n`,
    );
  };
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
          return reply(id, { error: `attractor does not support ${callbacks.join(" or ")} yet` });
        const ignored = ["agents", "systemPrompt", "appendSystemPrompt", "jsonSchema"].filter(
          (key) => request[key] !== undefined,
        );
        if (ignored.length > 0) stderr.write(`attractor: initialize: not honoured: ${ignored.join(", ")}\n`);
        return reply(id, {
          response: {
            commands: [],
            output_style: "default",
            available_output_styles: ["default"],
            models: [],
          },
        });
      }
      case "interrupt":
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
      default:
        return reply(id, {
          error: `attractor does not support the ${JSON.stringify(request.subtype)} control request yet`,
        });
    }
  };
}

/**
 * Reads stream-json input ahead of the run: control requests are answered as they arrive (so an
 * interrupt reaches a running turn), user messages are queued and yielded in order. Other lines
 * are reported on `stderr` with their line number and skipped.
 */
export async function* readStreamJsonInput(
  input: NodeJS.ReadableStream,
  stderr: TextSink,
  control: (request: ControlRequest) => Promise<void>,
): AsyncGenerator<string> {
  const queue: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  lines.on("line", (raw) => {
    number++;
    if (raw.trim() === "") return;
    const warn = (message: string) => stderr.write(`warning: stdin line ${number}: ${message}\n`);
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
      typeof line.request === "object"
    ) {
      control(line as ControlRequest).catch((error: unknown) =>
        warn(`control request failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      return;
    }
    // attractor sends no requests of its own, so a control_response answers nothing.
    if (line?.type === "control_response" || line?.type === "keep_alive") return;
    const text = userMessageText(value, warn);
    if (text === undefined) return;
    queue.push(text);
    wake?.();
  });
  lines.on("close", () => {
    ended = true;
    wake?.();
  });
  while (true) {
    const next = queue.shift();
    if (next !== undefined) {
      yield next;
      continue;
    }
    if (ended) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
}
