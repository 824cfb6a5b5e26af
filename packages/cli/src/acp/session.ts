import { readFile } from "node:fs/promises";
import {
  type ContentBlock,
  type PromptResponse,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import type { SandboxEscapeAnswer, SandboxEscapeRequest } from "@attractor/agent";
import { listModels } from "@attractor/llm";
import type { Runtime, RuntimeUi } from "@attractor/runtime";
import type { AskAnswer, PermissionRequest } from "@attractor/runtime/permissions";
import { parseInput } from "../commands/parse.js";
import type { RecordingEnvironment } from "./client-environment.js";
import { availableCommands, commandTarget, runBuiltin } from "./commands.js";
import { configOptions } from "./config-options.js";
import { ACP_ERROR, turnError } from "./errors.js";
import { modeFromId } from "./modes.js";
import { answerOf, permissionRequest } from "./permission-bridge.js";
import { promptInput } from "./prompt-content.js";
import { outputBlock, textContent } from "./tool-calls.js";
import { createUpdateTranslator, historyUpdates, planUpdate, type UpdateTranslator } from "./updates.js";

/** What a session needs of the editor's connection. */
export interface EditorLink {
  /** Sends a `session/update`; never throws (a closed connection drops it). */
  readonly update: (sessionId: string, update: SessionUpdate) => void;
  readonly requestPermission: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  /** Writes a line to the log (stderr). */
  readonly log: (message: string) => void;
}

/** How the last cycle of a turn ended, as the runtime's events told it. */
interface TurnEnd {
  reason: string | undefined;
  error: { message: string; errorName: string; statusCode?: number; finishReason?: string } | undefined;
}

/**
 * The RuntimeUi of an editor session: permission prompts go to `session/request_permission`,
 * routed to the session once it exists, and calls let through are shown running; questions of
 * the model are answered that the user replies in the chat.
 */
export function editorUi(target: () => AcpSession | undefined): RuntimeUi {
  return {
    askPermission: (request) => target()?.askPermission(request) ?? Promise.resolve("deny"),
    toolCallAllowed: (callId) => target()?.toolCallAllowed(callId),
    askSandboxEscape: (request) => target()?.askSandboxEscape(request) ?? Promise.resolve("no"),
    askUser: async (question) =>
      `The user is in an editor, which cannot answer questions in the middle of a turn. Put the question (${question.question}) in your reply and end the turn; the user answers in the next message.`,
  };
}

/**
 * One ACP session: a runtime (the same one the terminal UI drives) with its updates translated
 * for the editor, its permission prompts bridged, and prompt turns run one at a time.
 */
export class AcpSession {
  readonly id: string;
  readonly runtime: Runtime;
  private readonly link: EditorLink;
  private readonly environment: RecordingEnvironment | undefined;
  private readonly translator: UpdateTranslator;
  private readonly unsubscribe: () => void;
  /** Updates go to the editor only once it knows the session (after session/new answered). */
  private live = false;
  private busy = false;
  private cancelled = false;
  private end: TurnEnd = { reason: undefined, error: undefined };
  /** Sandbox questions asked without a known call to attach them to. */
  private escapes = 0;

  constructor(runtime: Runtime, link: EditorLink, environment: RecordingEnvironment | undefined) {
    this.id = runtime.session.id;
    this.runtime = runtime;
    this.link = link;
    this.environment = environment;
    this.translator = createUpdateTranslator({
      cwd: runtime.projectDir,
      sessionId: () => runtime.session.id,
      mark: () => environment?.mark() ?? 0,
      takeChange: (path, since) => environment?.takeChange(path, since),
      configOptions: () => configOptions(runtime),
      send: (update) => link.update(this.id, update),
    });
    this.unsubscribe = runtime.subscribe((update) => {
      if (update.source === "session" && update.event.sessionId === runtime.session.id) {
        const event = update.event;
        if (event.kind === "processing_end") this.end.reason = event.data.reason;
        // A cancel that came before the cycle began (nothing to stop yet) stops it as it starts.
        if (event.kind === "user_input" && this.cancelled && this.busy) runtime.interrupt().catch(() => {});
        if (event.kind === "error" && event.data.fatal !== false)
          this.end.error = {
            message: event.data.message,
            errorName: event.data.errorName,
            ...(event.data.statusCode !== undefined && { statusCode: event.data.statusCode }),
            ...(event.data.finishReason !== undefined && { finishReason: event.data.finishReason }),
          };
      }
      if (!this.live) {
        // Start-up warnings (settings ignored, servers not approved) go to the log.
        if (update.source === "runtime" && update.notice.kind === "warning")
          link.log(`warning: ${update.notice.message}`);
        return;
      }
      this.translator.onUpdate(update);
    });
  }

  /** Starts sending updates: the commands offered, the todo list, and everything from now on. */
  goLive(): void {
    if (this.live) return;
    this.live = true;
    this.link.update(this.id, {
      sessionUpdate: "available_commands_update",
      availableCommands: availableCommands(this.runtime),
    });
  }

  /** Sends the stored conversation as updates (session/load), before the load is answered. */
  replayHistory(): void {
    for (const update of historyUpdates(this.runtime.session.history, this.runtime.projectDir))
      this.link.update(this.id, update);
    if (this.runtime.todos.length > 0) this.link.update(this.id, planUpdate(this.runtime.todos));
  }

  /** Runs one prompt turn to its end and answers with why it stopped. */
  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    if (this.busy)
      throw new RequestError(
        ACP_ERROR.invalidParams,
        "A prompt is already running in this session: wait for it or cancel it first.",
      );
    this.busy = true;
    this.cancelled = false;
    // A prompt that came before the timer did (the editor answered at once) needs the updates.
    this.goLive();
    this.end = { reason: undefined, error: undefined };
    try {
      const input = await promptInput(blocks, this.runtime.projectDir, (path) => this.readText(path));
      if (this.cancelled) return { stopReason: "cancelled" };
      const command =
        input.images.length === 0 && input.text === input.typed ? parseInput(input.typed) : undefined;
      if (command?.kind === "command") {
        const handled = await this.runCommand(command.name, command.args);
        if (handled !== undefined) return { stopReason: handled };
      }
      await this.runtime.submit(
        input.images.length > 0 ? { text: input.text, images: input.images } : input.text,
      );
      return { stopReason: this.stopReason() };
    } finally {
      this.translator.flush();
      this.busy = false;
    }
  }

  /** Stops the running turn as Esc does; the prompt then answers `cancelled`. */
  async cancel(): Promise<void> {
    if (!this.busy) return;
    this.cancelled = true;
    await this.runtime.interrupt();
  }

  /** Switches the permission mode; rejects with invalid params for an unknown mode id. */
  setMode(id: string): void {
    const mode = modeFromId(id);
    if (mode === undefined)
      throw new RequestError(
        ACP_ERROR.invalidParams,
        `Unknown mode "${id}": use plan, normal, auto-edit or yolo.`,
      );
    this.runtime.setMode(mode);
  }

  /** Asks the editor, as the terminal would ask the user. */
  async askPermission(request: PermissionRequest): Promise<AskAnswer> {
    if (this.cancelled) return "deny";
    const read = (path: string) => this.readText(path);
    const response = await this.link.requestPermission(
      await permissionRequest(this.id, request, this.runtime.projectDir, read),
    );
    return this.cancelled ? "deny" : answerOf(response);
  }

  /**
   * Asks the editor whether a command the sandbox blocked may run again outside it, as the
   * terminal asks: once, always (this exact command), or no.
   */
  async askSandboxEscape(request: SandboxEscapeRequest): Promise<SandboxEscapeAnswer> {
    if (this.cancelled) return "no";
    const callId = this.translator.runningCommand(request.command) ?? `sandbox-${++this.escapes}`;
    const response = await this.link.requestPermission({
      sessionId: this.id,
      toolCall: {
        toolCallId: callId,
        title: `Run outside the sandbox: ${request.command}`,
        kind: "execute",
        status: "in_progress",
        content: [textContent(`${request.block.message}\n\n${outputBlock(request.block.evidence)}`)],
      },
      options: [
        { optionId: "once", name: "Run it again outside the sandbox, this once", kind: "allow_once" },
        { optionId: "always", name: "Always run this command outside the sandbox", kind: "allow_always" },
        { optionId: "no", name: "Keep it in the sandbox", kind: "reject_once" },
      ],
    });
    if (this.cancelled || response.outcome.outcome !== "selected") return "no";
    const chosen = response.outcome.optionId;
    return chosen === "once" || chosen === "always" ? chosen : "no";
  }

  /** A call passed the permission check and runs now. */
  toolCallAllowed(callId: string): void {
    this.translator.started(callId);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.runtime.close();
  }

  /** A file's text as the tools see it (the editor's buffer when files go through the editor). */
  private async readText(path: string): Promise<string | undefined> {
    try {
      if (this.environment) return await this.environment.readFile(path);
      return await readFile(path, "utf8");
    } catch {
      return undefined;
    }
  }

  /** Runs a slash command; undefined when the name is no command here (the text goes to the model). */
  private async runCommand(name: string, args: string): Promise<StopReason | undefined> {
    const target = commandTarget(this.runtime, name);
    const say = (text: string) =>
      this.link.update(this.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    switch (target.kind) {
      case "none":
        return undefined;
      case "builtin": {
        const sent = await runBuiltin(this.runtime, name, args, say);
        for (const text of sent) await this.runtime.submit(text);
        return sent.length > 0 ? this.stopReason() : "end_turn";
      }
      case "custom":
        try {
          await this.runtime.runCustomCommand?.(target.name, args);
        } catch (error) {
          say(`**/${name} failed:** ${error instanceof Error ? error.message : String(error)}\n`);
          return "end_turn";
        }
        return this.stopReason();
      case "skill":
        await this.runtime.submit(`Use the "${target.name}" skill.${args !== "" ? ` ${args}` : ""}`);
        return this.stopReason();
    }
  }

  /** Why the turn just run stopped; a fatal model error rejects the prompt with what to do. */
  private stopReason(): StopReason {
    if (this.cancelled || this.end.reason === "aborted") return "cancelled";
    if (this.end.reason === "turn_limit") return "max_turn_requests";
    const error = this.end.error;
    if (this.end.reason === "error" && error !== undefined) {
      const finish = error.finishReason?.toLowerCase();
      if (finish === "max_tokens" || finish === "length") return "max_tokens";
      if (finish === "refusal" || finish === "safety") return "refusal";
      const { provider, model } = this.runtime;
      throw turnError(error, { provider, model, models: listModels(provider).map((m) => m.id) });
    }
    return "end_turn";
  }
}
