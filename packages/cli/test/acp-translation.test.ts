import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutionEnvironment } from "@attractor/agent";
import type { PermissionRequest } from "@attractor/runtime/permissions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientEnvironment } from "../src/acp/client-environment.js";
import { answerOf, permissionRequest } from "../src/acp/permission-bridge.js";
import { attachedFile, lineRange, promptInput } from "../src/acp/prompt-content.js";
import { firstChangedLine, toolKind } from "../src/acp/tool-calls.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-acp-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("tool kinds", () => {
  it("a patch that only deletes is a deletion, one that only moves a move, others edits", () => {
    const patch = (body: string) => ({ patch: `*** Begin Patch\n${body}\n*** End Patch` });
    expect(toolKind("apply_patch", patch("*** Delete File: a.js"))).toBe("delete");
    expect(toolKind("apply_patch", patch("*** Update File: a.js\n*** Move to: b.js\n@@\n same"))).toBe(
      "move",
    );
    expect(toolKind("apply_patch", patch("*** Update File: a.js\n*** Move to: b.js\n@@\n-old\n+new"))).toBe(
      "edit",
    );
    expect(toolKind("apply_patch", patch("*** Delete File: a.js\n*** Add File: b.js\n+x"))).toBe("edit");
    expect(toolKind("shell", { command: "ls" })).toBe("execute");
    expect(toolKind("grep", { pattern: "x" })).toBe("search");
    expect(toolKind("mcp__server__frobnicate", {})).toBe("other");
  });

  it("the first changed line is where an edit's location points", () => {
    expect(firstChangedLine("a\nb\nc\n", "a\nB\nc\n")).toBe(2);
    expect(firstChangedLine("a\n", "a\nb\n")).toBe(2);
    expect(firstChangedLine("", "x\n")).toBe(1);
    expect(firstChangedLine("same", "same")).toBeUndefined();
  });
});

describe("prompt content", () => {
  it("reads a selection's first line from the ways editors write it", () => {
    expect(lineRange("file:///p/a.ts#L12")).toBe(12);
    expect(lineRange("file:///p/a.ts#L12-20")).toBe(12);
    expect(lineRange("file:///p/a.ts#L12:20")).toBe(12);
    expect(lineRange("file:///p/a.ts#12")).toBe(12);
    expect(lineRange("file:///p/a.ts")).toBeUndefined();
  });

  it("numbers an attached selection from its first line and labels its range", () => {
    expect(attachedFile("src/a.ts", "x\ny\n", 7)).toBe(
      '<attached-file path="src/a.ts" lines="7-8">\n7\tx\n8\ty\n</attached-file>\n',
    );
    expect(attachedFile("src/a.ts", "x", undefined)).toBe(
      '<attached-file path="src/a.ts">\n1\tx\n</attached-file>\n',
    );
  });

  it("keeps the typed text apart from the context, and a link it cannot read stays a link", async () => {
    const input = await promptInput(
      [
        { type: "text", text: "/review now" },
        { type: "resource_link", name: "spec", uri: "https://example.com/spec" },
      ],
      dir,
      async () => undefined,
    );
    expect(input.typed).toBe("/review now\n[spec](https://example.com/spec)");
    expect(input.text).toBe(input.typed);
    expect(input.images).toEqual([]);
  });
});

describe("permission requests", () => {
  const request = (over: Partial<PermissionRequest>): PermissionRequest => ({
    call: { callId: "c1", toolName: "shell", arguments: { command: "rm -rf build" } },
    kind: "shell",
    reason: "the command deletes files",
    command: "rm -rf build",
    paths: [],
    canAllowAlways: true,
    alwaysRules: ["shell(rm -rf build)"],
    ...over,
  });

  it("offers always only where the terminal does, naming the rule it adds", async () => {
    const normal = await permissionRequest("s", request({}), dir, async () => undefined);
    expect(normal.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(normal.options[1]?.name).toContain("shell(rm -rf build)");
    const critical = await permissionRequest(
      "s",
      request({ canAllowAlways: false }),
      dir,
      async () => undefined,
    );
    expect(critical.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
  });

  it("previews an edit only when it is exactly what the edit would write", async () => {
    const file = join(dir, "a.txt");
    const edit = (oldString: string, replaceAll = false) =>
      request({
        call: {
          callId: "c2",
          toolName: "edit_file",
          arguments: { file_path: file, old_string: oldString, new_string: "Z", replace_all: replaceAll },
        },
        kind: "edit",
        command: undefined,
      });
    const read = async () => "x y x";
    const once = await permissionRequest("s", edit("y"), dir, read);
    expect(once.toolCall.content).toContainEqual({
      type: "diff",
      path: file,
      oldText: "x y x",
      newText: "x Z x",
    });
    // Two occurrences without replace_all: the tool decides (or refuses), so no preview is shown.
    const twice = await permissionRequest("s", edit("x"), dir, read);
    expect(twice.toolCall.content?.some((c) => c.type === "diff")).toBe(false);
    const all = await permissionRequest("s", edit("x", true), dir, read);
    expect(all.toolCall.content).toContainEqual({
      type: "diff",
      path: file,
      oldText: "x y x",
      newText: "Z y Z",
    });
  });

  it("a cancelled question and an unknown option are refusals", () => {
    expect(answerOf({ outcome: { outcome: "cancelled" } })).toBe("deny");
    expect(answerOf({ outcome: { outcome: "selected", optionId: "something-else" } })).toBe("deny");
    expect(answerOf({ outcome: { outcome: "selected", optionId: "allow_always" } })).toBe("allow_always");
  });
});

describe("files through the editor", () => {
  it("reads text from the editor, binary files from the disk, and writes text through the editor", async () => {
    await writeFile(join(dir, "a.txt"), "disk\n");
    await writeFile(join(dir, "b.bin"), Buffer.from([0, 1, 2, 3]));
    const written: [string, string][] = [];
    const env = clientEnvironment(new LocalExecutionEnvironment({ workingDirectory: dir }), {
      readTextFile: async (path) =>
        path.endsWith("a.txt") ? "buffer line 1\nbuffer line 2\n" : "unexpected",
      writeTextFile: async (path, content) => {
        written.push([path, content]);
      },
    });
    expect(await env.readFile("a.txt")).toBe("buffer line 1\nbuffer line 2\n");
    expect(await env.readFile("a.txt", { offset: 2, limit: 1 })).toBe("buffer line 2");
    expect([...(await env.readFileBytes("b.bin"))]).toEqual([0, 1, 2, 3]);
    const mark = env.mark();
    await env.writeFile("a.txt", "new\n");
    expect(written).toEqual([[join(dir, "a.txt"), "new\n"]]);
    expect(env.takeChange("a.txt", mark)).toEqual({
      path: join(dir, "a.txt"),
      oldText: "buffer line 1\nbuffer line 2\n",
      newText: "new\n",
    });
    // Taken once; and a change from before a mark is not the call's.
    expect(env.takeChange("a.txt", mark)).toBeUndefined();
    await env.writeFile("a.txt", "again\n");
    const later = env.mark();
    expect(env.takeChange("a.txt", later)).toBeUndefined();
  });
});
