import { getModelInfo } from "@attractor/llm";
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
      "shell_output",
      "shell_input",
      "shell_kill",
      "grep",
      "glob",
      ...subagents,
    ]);
    expect(anthropic.toolRegistry.names()).toEqual([
      "read_file",
      "write_file",
      "edit_file",
      "shell",
      "shell_output",
      "shell_input",
      "shell_kill",
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
      "shell_output",
      "shell_input",
      "shell_kill",
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

describe("profile defaults", () => {
  it("wire the built-in tools when none are given, with each provider's shell default", async () => {
    const anthropic = createAnthropicProfile("claude-sonnet-4-5");
    const openai = createOpenAIProfile("gpt-5.2");
    const gemini = createGeminiProfile("gemini-3-flash-preview");
    expect(anthropic.toolRegistry.get("edit_file")?.definition.parameters).toMatchObject({
      required: expect.arrayContaining(["file_path", "old_string", "new_string"]),
    });
    expect(openai.toolRegistry.get("apply_patch")?.definition.parameters).toMatchObject({
      required: ["patch"],
    });
    expect(gemini.toolRegistry.get("list_dir")).toBeDefined();
    const grep = anthropic.toolRegistry.get("grep")?.definition.parameters as {
      properties: Record<string, { enum?: string[] }>;
    };
    expect(grep.properties.output_mode?.enum).toEqual(["content", "files_with_matches", "count"]);
    expect(openai.toolRegistry.get("grep")?.definition.parameters).not.toHaveProperty(
      "properties.output_mode",
    );
    const shellDescription = (p: typeof openai) => p.toolRegistry.get("shell")?.definition.description;
    expect(shellDescription(anthropic)).toContain("120000 ms");
    expect(shellDescription(openai)).toContain("10000 ms");
    expect(shellDescription(gemini)).toContain("10000 ms");
  });

  it("substitute only the tool implementations a host passes", () => {
    const p = createOpenAIProfile("gpt-5.2", { tools: { glob: stub("glob", " (host)") } });
    expect(p.toolRegistry.get("glob")?.definition.description).toBe("glob (host)");
    expect(p.toolRegistry.get("read_file")?.definition.description).not.toBe("read_file");
  });

  it("take context window, display name and knowledge cutoff from the llm catalog", () => {
    const known = createAnthropicProfile("claude-opus-4-6");
    const info = getModelInfo("claude-opus-4-6")!;
    expect(known.contextWindowSize).toBe(info.contextWindow);
    expect(known.displayName).toBe(info.displayName);
    expect(known.knowledgeCutoff).toBe(info.knowledgeCutoff);
    expect(known.supportsReasoning).toBe(info.supportsReasoning);
    const gemini = createGeminiProfile("gemini-2.5-flash");
    expect(gemini.contextWindowSize).toBe(getModelInfo("gemini-2.5-flash")!.contextWindow);
    const switched = known.withModel("gpt-4o");
    expect(switched.contextWindowSize).toBe(getModelInfo("gpt-4o")!.contextWindow);
    expect(switched.displayName).toBe(getModelInfo("gpt-4o")!.displayName);

    const unknown = createOpenAIProfile("my-finetune");
    expect(unknown.contextWindowSize).toBe(400_000);
    expect(unknown.displayName).toBeUndefined();
    expect(createOpenAIProfile("gpt-5.2", { contextWindowSize: 1234 }).contextWindowSize).toBe(1234);
  });
});
