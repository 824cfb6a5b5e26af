import type { Message, StreamEvent, ToolDefinition } from "@attractor/llm";
import { historyToMessages } from "../history/messages.js";
import type { ProviderProfile } from "../types/profile.js";
import type { Turn } from "../types/turn.js";
import { promptedHistoryToMessages } from "./history.js";
import { promptedToolInstructions } from "./instructions.js";
import { applyTextProtocol, isActiveProtocol, type TextProtocol } from "./text-protocol.js";

/** Whether the profile's model calls tools through `<tool_call>` text. */
export function isPrompted(profile: ProviderProfile): boolean {
  return profile.toolCallMode === "prompted";
}

/** The text protocol a profile's answers follow (prompted calls, think tags, or neither). */
export function textProtocolOf(profile: ProviderProfile): TextProtocol {
  return {
    toolCalls: isPrompted(profile),
    thinkTags: profile.thinkTags === true,
    parametersOf: (name) => {
      const schema = profile.toolRegistry.get(name)?.definition.parameters as
        | { properties?: Record<string, unknown> }
        | undefined;
      return schema?.properties ? Object.keys(schema.properties) : undefined;
    },
  };
}

/** The model stream read through the profile's text protocol (unchanged for native profiles). */
export function readThroughProtocol(
  profile: ProviderProfile,
  stream: AsyncIterable<StreamEvent>,
): AsyncIterable<StreamEvent> {
  const protocol = textProtocolOf(profile);
  return isActiveProtocol(protocol) ? applyTextProtocol(stream, protocol) : stream;
}

/** How this call offers tools: definitions for the API (native) or instructions for the prompt (prompted). */
export function toolOffer(
  profile: ProviderProfile,
  tools: readonly ToolDefinition[],
): { readonly requestTools: readonly ToolDefinition[]; readonly toolCallInstructions?: string } {
  if (!isPrompted(profile)) return { requestTools: tools };
  return {
    requestTools: [],
    ...(tools.length > 0 && { toolCallInstructions: promptedToolInstructions(tools) }),
  };
}

/** The history as messages in the form the profile's model understands. */
export function modelMessages(profile: ProviderProfile, history: readonly Turn[]): readonly Message[] {
  return isPrompted(profile) ? promptedHistoryToMessages(history) : historyToMessages(history);
}
