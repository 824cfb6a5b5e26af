import { describe, expect, it } from "vitest";
import type { RegisteredTool } from "../types/tool.js";
import { createAnthropicProfile } from "./anthropic/index.js";
import { createGeminiProfile } from "./gemini/index.js";
import { createOpenAIProfile } from "./openai/index.js";
import type { ToolFactories } from "./toolset.js";

const stub =
  (name: string, extra = "") =>
  (): RegisteredTool => ({
    definition: { name, description: `${name}${extra}`, parameters: { type: "object", properties: {} } },
    executor: async () => name,
  });
const shellTimeouts: number[] = [];
const tools: ToolFactories = {
  readFile: stub("read_file"),
  writeFile: stub("write_file"),
  editFile: stub("edit_file"),
  applyPatch: stub("apply_patch"),
  readManyFiles: stub("read_many_files"),
  shell: ({ defaultTimeoutMs }) => {
    shellTimeouts.push(defaultTimeoutMs);
    return stub("shell")();
  },
  grep: (o) => stub("grep", o?.outputModes ? " (modes)" : "")(),
  glob: stub("glob"),
  listDir: stub("list_dir"),
};
const subagents = ["spawn_agent", "send_input", "wait", "close_agent"];

describe("provider profiles", () => {
  it("give each provider its native tool set, shell default and project doc file", () => {
    shellTimeouts.length = 0;
    const openai = createOpenAIProfile("gpt-5.2", { tools });
    const anthropic = createAnthropicProfile("claude-sonnet-4-5", { tools });
    const gemini = createGeminiProfile("gemini-3-flash-preview", { tools });
    expect(openai.toolRegistry.names()).toEqual([
      "read_file",
      "apply_patch",
      "write_file",
      "shell",
      "grep",
      "glob",
      ...subagents,
    ]);
    expect(anthropic.toolRegistry.names()).toEqual([
      "read_file",
      "write_file",
      "edit_file",
      "shell",
      "grep",
      "glob",
      ...subagents,
    ]);
    expect(gemini.toolRegistry.names()).toEqual([
      "read_file",
      "read_many_files",
      "write_file",
      "edit_file",
      "shell",
      "grep",
      "glob",
      "list_dir",
      ...subagents,
    ]);
    expect(shellTimeouts).toEqual([10_000, 120_000, 10_000]);
    expect(anthropic.defaultCommandTimeoutMs).toBe(120_000);
    expect(anthropic.toolRegistry.get("grep")?.definition.description).toContain("(modes)");
    expect([openai, anthropic, gemini].map((p) => p.projectDocFiles)).toEqual([
      [".codex/instructions.md"],
      ["CLAUDE.md"],
      ["GEMINI.md"],
    ]);
    expect(openai.supportsParallelToolCalls).toBe(true);
  });

  it("let custom tools be registered, the latest registration winning", () => {
    const p = createAnthropicProfile("claude-sonnet-4-5", { tools });
    p.toolRegistry.register({ ...stub("deploy")() });
    p.toolRegistry.register({ ...stub("read_file", " custom")() });
    expect(p.tools().map((t) => t.name)).toContain("deploy");
    expect(p.toolRegistry.get("read_file")?.definition.description).toBe("read_file custom");
    expect(p.withModel("claude-opus-4-6").toolRegistry.get("deploy")).toBeDefined();
  });

  it("build provider-specific system prompts covering identity, editing and safety", () => {
    const ctx = { environmentBlock: "<environment>\n</environment>", projectDocs: "", tools: [] } as const;
    const build = (p: ReturnType<typeof createOpenAIProfile>) =>
      p.buildSystemPrompt({
        ...ctx,
        environment: undefined as never,
        model: p.model,
        userInstructions: "LAST",
      });
    const openai = build(createOpenAIProfile("gpt-5.2", { tools }));
    const anthropic = build(createAnthropicProfile("claude-sonnet-4-5", { tools }));
    const gemini = build(createGeminiProfile("gemini-3-flash-preview", { tools }));
    expect(openai).toContain("*** Begin Patch");
    expect(anthropic).toMatch(/old_string must match/);
    expect(anthropic).toMatch(/read a file with read_file before you edit/);
    expect(gemini).toContain("list_dir");
    for (const prompt of [openai, anthropic, gemini]) {
      expect(prompt).toContain("<environment>");
      expect(prompt).toMatch(/secret/i);
      expect(prompt.trimEnd().endsWith("LAST")).toBe(true);
    }
  });
});
