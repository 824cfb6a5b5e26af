import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { ToolDefinition } from "@attractor/llm";
import { createProviderProfile } from "../../src/profiles/create-profile.js";
import type { SessionEvent } from "../../src/types/events.js";
import type { ProfileToolRegistry, ProviderProfile } from "../../src/types/profile.js";
import type { RegisteredTool } from "../../src/types/tool.js";

/** A map-backed registry (latest registration wins). */
export function mapRegistry(tools: readonly RegisteredTool[] = []): ProfileToolRegistry {
  const map = new Map<string, RegisteredTool>();
  for (const t of tools) map.set(t.definition.name, t);
  return {
    register: (t) => void map.set(t.definition.name, t),
    unregister: (n) => map.delete(n),
    get: (n) => map.get(n),
    definitions: (): ToolDefinition[] => [...map.values()].map((t) => t.definition),
    names: () => [...map.keys()],
  };
}

/** A profile over the given tools. */
export function testProfile(
  tools: readonly RegisteredTool[],
  overrides: { parallel?: boolean; contextWindowSize?: number } = {},
): ProviderProfile {
  return createProviderProfile({
    id: "scripted",
    model: "scripted-model",
    basePrompt: "You are a test agent.",
    toolRegistry: mapRegistry(tools),
    projectDocFiles: [],
    supportsParallelToolCalls: overrides.parallel ?? false,
    contextWindowSize: overrides.contextWindowSize ?? 100_000,
  });
}

/** A tool defined by a function of its arguments. */
export function fnTool(
  name: string,
  run: RegisteredTool["executor"],
  properties: Record<string, unknown> = {},
): RegisteredTool {
  return {
    definition: { name, description: `${name} tool`, parameters: { type: "object", properties } },
    executor: run,
  };
}

/** A fresh temp dir and its remover. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "attractor-session-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Collects every event until the iterator ends. */
export async function collect(events: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const all: SessionEvent[] = [];
  for await (const e of events) all.push(e);
  return all;
}
