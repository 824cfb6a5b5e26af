import { type Static, Type } from "@sinclair/typebox";
import { defineBuiltinTool } from "../tools/define-tool.js";
import type { SubagentResult, SubagentStatus } from "../types/session.js";
import type { RegisteredTool } from "../types/tool.js";

/**
 * What the subagent tools ask of the running session's children (SubagentManager provides it);
 * an interface here, so the tools and the manager do not import each other.
 */
export interface SubagentControl {
  spawn(options: {
    readonly task: string;
    readonly callId?: string;
    readonly workingDir?: string;
    readonly model?: string;
    readonly maxTurns?: number;
    readonly subagentType?: string;
  }): { readonly id: string; readonly status: SubagentStatus };
  sendInput(id: string, message: string): SubagentStatus;
  wait(id: string, signal?: AbortSignal): Promise<SubagentResult>;
  close(id: string): Promise<SubagentStatus>;
}

/** How a subagent tool finds the children of the session running it. */
type ManagerRef = () => SubagentControl;

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
export function bindSubagentTool(tool: RegisteredTool, manager: SubagentControl): RegisteredTool | undefined {
  return REBIND.get(tool)?.(() => manager);
}

/** A string argument, or undefined when absent or blank. */
const given = (v: string | undefined): string | undefined =>
  v !== undefined && v.trim() !== "" ? v : undefined;

const AGENT_ID = Type.String({ description: "The id spawn_agent returned." });

const SPAWN_PARAMETERS = Type.Object(
  {
    task: Type.String({ description: "What the subagent should do, with all the context it needs." }),
    working_dir: Type.Optional(
      Type.String({
        description: "Subdirectory (relative to the working directory) to scope the subagent to.",
      }),
    ),
    model: Type.Optional(Type.String({ description: "Model for the subagent; defaults to yours." })),
    max_turns: Type.Optional(
      Type.Integer({ minimum: 0, description: "Limit on the subagent's model turns; 0 = unlimited." }),
    ),
    subagent_type: Type.Optional(
      Type.String({
        description: "A specialised subagent listed in this description; a general one when omitted.",
      }),
    ),
    run_in_background: Type.Optional(
      Type.Boolean({
        description:
          "With a subagent_type: true returns the agent_id at once instead of waiting for the answer.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** spawn_agent's arguments. */
export type SpawnAgentArgs = Static<typeof SPAWN_PARAMETERS>;

/** spawn_agent: starts a child session on a task and returns its id at once. */
export const spawnAgentTool = (): RegisteredTool =>
  define((manager) =>
    defineBuiltinTool({
      name: "spawn_agent",
      description:
        "Start a subagent: an independent agent with its own conversation that works on a scoped task in the same files. With a subagent_type the call waits and returns the subagent's final answer (unless run_in_background is true); without one it returns the agent_id immediately and the subagent works concurrently with you: call wait to get its result.\nGive it a complete, self-contained task description: it does not see your conversation.",
      parameters: SPAWN_PARAMETERS,
      execute: async (args, context) => {
        const subagentType = given(args.subagent_type);
        const workingDir = given(args.working_dir);
        const model = given(args.model);
        const handle = manager().spawn({
          task: args.task,
          callId: context.toolCallId,
          ...(subagentType !== undefined && { subagentType }),
          ...(workingDir !== undefined && { workingDir }),
          ...(model !== undefined && { model }),
          ...(args.max_turns !== undefined && { maxTurns: args.max_turns }),
        });
        // A typed subagent is called as Claude Code calls its Agent tool: the answer comes back.
        if (subagentType === undefined || args.run_in_background === true)
          return JSON.stringify({ agent_id: handle.id, status: handle.status });
        return resultOutput(handle.id, await manager().wait(handle.id, context.signal));
      },
    }),
  );

/** send_input: gives a running or finished child another message. */
export const sendInputTool = (): RegisteredTool =>
  define((manager) =>
    defineBuiltinTool({
      name: "send_input",
      description:
        "Send a message to a subagent. If it had finished, it starts working again on the message.",
      parameters: Type.Object(
        { agent_id: AGENT_ID, message: Type.String({ description: "The message for the subagent." }) },
        { additionalProperties: false },
      ),
      execute: async (args) => {
        const status = manager().sendInput(args.agent_id, args.message);
        return JSON.stringify({ agent_id: args.agent_id, status, acknowledged: true });
      },
    }),
  );

/** A finished child's answer as a tool result. */
function resultOutput(agentId: string, result: SubagentResult) {
  return {
    output: JSON.stringify({
      agent_id: agentId,
      output: result.output,
      success: result.success,
      turns_used: result.turnsUsed,
    }),
    isError: !result.success,
    ...(!result.success && { errorCode: "subagent_failed" }),
    details: { success: result.success, turnsUsed: result.turnsUsed },
  };
}

/** wait: blocks until a child is done and returns its output. */
export const waitTool = (): RegisteredTool =>
  define((manager) =>
    defineBuiltinTool({
      name: "wait",
      description:
        "Wait for a subagent to finish its work and return its final answer, whether it succeeded, and the turns it used.",
      parameters: Type.Object({ agent_id: AGENT_ID }, { additionalProperties: false }),
      readOnly: true,
      execute: async (args, context) =>
        resultOutput(args.agent_id, await manager().wait(args.agent_id, context.signal)),
    }),
  );

/** close_agent: stops a child and reports its final status. */
export const closeAgentTool = (): RegisteredTool =>
  define((manager) =>
    defineBuiltinTool({
      name: "close_agent",
      description: "Stop a subagent, aborting any work in progress, and return its final status.",
      parameters: Type.Object({ agent_id: AGENT_ID }, { additionalProperties: false }),
      execute: async (args) => {
        const status = await manager().close(args.agent_id);
        return JSON.stringify({ agent_id: args.agent_id, status });
      },
    }),
  );

/** The four subagent tools, in the order profiles list them; a session binds them to its children. */
export function subagentTools(): RegisteredTool[] {
  return [spawnAgentTool(), sendInputTool(), waitTool(), closeAgentTool()];
}
