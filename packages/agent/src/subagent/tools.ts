import { builtinSchema } from "../tools/schema.js";
import type { RegisteredTool, ToolContext } from "../types/tool.js";
import type { SubagentManager } from "./manager.js";

/** How a subagent tool finds the manager of the session running it. */
type ManagerRef = () => SubagentManager;

const unbound: ManagerRef = () => {
  throw new Error("Subagents are only available inside a session");
};

/** Rebuilds each built-in subagent tool around another manager, keeping its definition object. */
const REBIND = new WeakMap<RegisteredTool, (manager: ManagerRef) => RegisteredTool>();

function define(make: (manager: ManagerRef) => RegisteredTool): RegisteredTool {
  const tool = make(unbound);
  REBIND.set(tool, (manager) => ({ ...make(manager), definition: tool.definition }));
  return tool;
}

/**
 * The copy of a built-in subagent tool that acts on `manager` (the running session's children);
 * undefined for any other tool, including a host's own tool registered under the same name.
 */
export function bindSubagentTool(tool: RegisteredTool, manager: SubagentManager): RegisteredTool | undefined {
  return REBIND.get(tool)?.(() => manager);
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** spawn_agent: starts a child session on a task and returns its id at once. */
export const spawnAgentTool = (): RegisteredTool =>
  define((manager) => ({
    definition: {
      name: "spawn_agent",
      description:
        "Start a subagent: an independent agent with its own conversation that works on a scoped task in the same files, concurrently with you. Returns its agent_id immediately; call wait to get its result.\nGive it a complete, self-contained task description: it does not see your conversation.",
      parameters: builtinSchema({
        type: "object",
        properties: {
          task: {
            type: "string",
            description: "What the subagent should do, with all the context it needs.",
          },
          working_dir: {
            type: "string",
            description: "Subdirectory (relative to the working directory) to scope the subagent to.",
          },
          model: { type: "string", description: "Model for the subagent; defaults to yours." },
          max_turns: {
            type: "integer",
            minimum: 0,
            description: "Limit on the subagent's model turns; 0 = unlimited.",
          },
          subagent_type: {
            type: "string",
            description: "A specialised subagent listed in this description; a general one when omitted.",
          },
        },
        required: ["task"],
        additionalProperties: false,
      }),
    },
    executor: async (args, _env, context: ToolContext) => {
      const handle = manager().spawn({
        task: String(args.task ?? ""),
        callId: context.toolCallId,
        ...(str(args.subagent_type) !== undefined && { subagentType: str(args.subagent_type)! }),
        ...(str(args.working_dir) !== undefined && { workingDir: str(args.working_dir)! }),
        ...(str(args.model) !== undefined && { model: str(args.model)! }),
        ...(typeof args.max_turns === "number" && { maxTurns: args.max_turns }),
      });
      return JSON.stringify({ agent_id: handle.id, status: handle.status });
    },
  }));

/** send_input: gives a running or finished child another message. */
export const sendInputTool = (): RegisteredTool =>
  define((manager) => ({
    definition: {
      name: "send_input",
      description:
        "Send a message to a subagent. If it had finished, it starts working again on the message.",
      parameters: builtinSchema({
        type: "object",
        properties: {
          agent_id: { type: "string", description: "The id spawn_agent returned." },
          message: { type: "string", description: "The message for the subagent." },
        },
        required: ["agent_id", "message"],
        additionalProperties: false,
      }),
    },
    executor: async (args) => {
      const status = manager().sendInput(String(args.agent_id), String(args.message ?? ""));
      return JSON.stringify({ agent_id: args.agent_id, status, acknowledged: true });
    },
  }));

/** wait: blocks until a child is done and returns its output. */
export const waitTool = (): RegisteredTool =>
  define((manager) => ({
    definition: {
      name: "wait",
      description:
        "Wait for a subagent to finish its work and return its final answer, whether it succeeded, and the turns it used.",
      parameters: builtinSchema({
        type: "object",
        properties: { agent_id: { type: "string", description: "The id spawn_agent returned." } },
        required: ["agent_id"],
        additionalProperties: false,
      }),
    },
    readOnly: true,
    executor: async (args, _env, context: ToolContext) => {
      const result = await manager().wait(String(args.agent_id), context.signal);
      return {
        output: JSON.stringify({
          agent_id: args.agent_id,
          output: result.output,
          success: result.success,
          turns_used: result.turnsUsed,
        }),
        isError: !result.success,
        details: { success: result.success, turnsUsed: result.turnsUsed },
      };
    },
  }));

/** close_agent: stops a child and reports its final status. */
export const closeAgentTool = (): RegisteredTool =>
  define((manager) => ({
    definition: {
      name: "close_agent",
      description: "Stop a subagent, aborting any work in progress, and return its final status.",
      parameters: builtinSchema({
        type: "object",
        properties: { agent_id: { type: "string", description: "The id spawn_agent returned." } },
        required: ["agent_id"],
        additionalProperties: false,
      }),
    },
    executor: async (args) => {
      const status = await manager().close(String(args.agent_id));
      return JSON.stringify({ agent_id: args.agent_id, status });
    },
  }));

/** The four subagent tools, in the order profiles list them; a session binds them to its children. */
export function subagentTools(): RegisteredTool[] {
  return [spawnAgentTool(), sendInputTool(), waitTool(), closeAgentTool()];
}
