import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { editFileTool, LocalExecutionEnvironment } from "@attractor/agent";
import type { PermissionRequest } from "@attractor/runtime/permissions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permissionPreview } from "../src/tui/permission-preview.js";

let project: string;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "permission-preview-"));
});
afterAll(() => rm(project, { recursive: true, force: true }));

const request = (toolName: string, args: Record<string, unknown>): PermissionRequest => ({
  call: { callId: "c", toolName, arguments: args },
  kind: "edit",
  reason: "edit",
  paths: [String(args.file_path)],
  canAllowAlways: true,
  alwaysRules: [],
});

describe("a permission prompt's diff", () => {
  it("is the edit the tool makes, after its normalisations", async () => {
    await writeFile(join(project, "main.go"), "func f() {\n\tif ok {\n\t\trun()\n\t}\n}\n");
    const args = {
      file_path: "main.go",
      old_string: "    if ok {\n        run()",
      new_string: "    if ok {\n        run(fast)",
    };
    const preview = permissionPreview(request("edit_file", args), project);
    expect(preview.kind).toBe("diff");
    const diff = preview.kind === "diff" ? preview.diff : "";
    expect(diff).toContain("-\t\trun()\n+\t\trun(fast)");
    // The same change the tool then reports.
    const env = new LocalExecutionEnvironment({ workingDirectory: project });
    const out = await editFileTool().executor(args, env, { toolCallId: "c" });
    expect(typeof out === "string" ? "" : out.details?.diff).toBe(diff);
    expect(await readFile(join(project, "main.go"), "utf8")).toBe(
      "func f() {\n\tif ok {\n\t\trun(fast)\n\t}\n}\n",
    );
  });

  it("shows what was asked for when the tool will refuse the edit", async () => {
    await writeFile(join(project, "a.txt"), "one\ntwo\n");
    const preview = permissionPreview(
      request("edit_file", { file_path: "a.txt", old_string: "three", new_string: "3" }),
      project,
    );
    const diff = preview.kind === "diff" ? preview.diff : "";
    expect(diff).toMatch(/^-three$/m);
    expect(diff).toMatch(/^\+3$/m);
  });

  it("keeps a file's byte-order mark for write_file, as the tool does", async () => {
    await writeFile(join(project, "w.txt"), "\uFEFFa\nb\n");
    const preview = permissionPreview(
      request("write_file", { file_path: "w.txt", content: "a\nc\n" }),
      project,
    );
    const diff = preview.kind === "diff" ? preview.diff : "";
    expect(diff).toMatch(/^\+c$/m);
    expect(diff).not.toMatch(/^-\uFEFFa$/m);
  });
});
