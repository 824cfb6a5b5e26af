import { claudeCodeNamesOf, toolNamesFor, withClaudeCodeFields } from "@attractor/agent";
import { describe, expect, it } from "vitest";
import { createPermissionPolicy, parseRule } from "../src/permissions/index.js";

describe("Claude Code's names for web, background-process and notebook tools", () => {
  it("map to ours in rules", () => {
    expect(parseRule("WebFetch(domain:docs.python.org)")).toMatchObject({
      tools: ["web_fetch"],
      pattern: "domain:docs.python.org",
    });
    expect(parseRule("BashOutput").tools).toEqual(["shell_output"]);
    expect(parseRule("KillShell").tools).toEqual(["shell_kill"]);
    expect(parseRule("KillBash").tools).toEqual(["shell_kill"]);
    expect(parseRule("NotebookEdit(notebooks/**)").tools).toEqual(["notebook_edit"]);
    expect(parseRule("edit").tools).toContain("notebook_edit");
    expect(() => parseRule("WebFetch(https://example.com/*)")).toThrow(/names a domain/);
  });

  it("map to ours in hooks and subagent tool lists, with Claude Code's field names for hook scripts", () => {
    expect(claudeCodeNamesOf("web_fetch")).toEqual(["WebFetch"]);
    expect(claudeCodeNamesOf("shell_output")).toEqual(["BashOutput"]);
    expect(claudeCodeNamesOf("shell_kill")[0]).toBe("KillShell");
    expect(claudeCodeNamesOf("notebook_edit")).toEqual(["NotebookEdit"]);
    expect(toolNamesFor("BashOutput")).toEqual(["shell_output"]);
    expect(toolNamesFor("NotebookEdit")).toEqual(["notebook_edit"]);
    expect(withClaudeCodeFields("shell_output", { id: "bg1" })).toEqual({ id: "bg1", bash_id: "bg1" });
    expect(withClaudeCodeFields("shell_kill", { id: "bg1" })).toEqual({ id: "bg1", shell_id: "bg1" });
    expect(withClaudeCodeFields("web_fetch", { url: "https://x.dev", question: "what?" })).toEqual({
      url: "https://x.dev",
      question: "what?",
      prompt: "what?",
    });
  });

  it("notebook edits are judged as file edits: outside the project they ask, inside auto-edit allows them", async () => {
    const policy = createPermissionPolicy({ mode: "auto-edit", projectRoot: process.cwd() });
    const call = (notebook_path: string) => ({
      callId: "c",
      toolName: "notebook_edit",
      arguments: { notebook_path, cell_number: 1, new_source: "x" },
    });
    expect((await policy.evaluate(call("analysis.ipynb"))).behavior).toBe("allow");
    expect((await policy.evaluate(call("/etc/analysis.ipynb"))).behavior).toBe("ask");
    const deny = createPermissionPolicy({
      mode: "yolo",
      projectRoot: process.cwd(),
      rules: { deny: ["NotebookEdit(secret/**)"] },
    });
    expect((await deny.evaluate(call("secret/a.ipynb"))).behavior).toBe("deny");
  });
});
