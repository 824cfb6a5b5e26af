import { writeFile } from "node:fs/promises";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeIntelligence } from "../src/lsp/code-intelligence.js";
import { type LspProject, openLspProject } from "./support/lsp-project.js";

/** Waits (without a deadline of its own: the test's timeout bounds it) until the condition holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

describe("code intelligence without a usable server", () => {
  let project: LspProject;
  beforeAll(async () => {
    project = await openLspProject("typescript", {
      withServers: false,
      intelligence: {
        servers: [
          { id: "go", command: "no-such-language-server", extensions: [".go"] },
          {
            id: "broken",
            command: "/bin/sh",
            args: ["-c", "echo broken server >&2; exit 3"],
            extensions: [".brk"],
          },
        ],
      },
    });
    // Registered by hand: install() left them out, and the calls below show what they say then.
    for (const tool of project.intelligence.tools()) project.profile.toolRegistry.register(tool);
  });
  afterAll(() => project?.close());

  it("offers neither the tools nor the guidance when no server is installed", async () => {
    expect(project.installed).toBe(false);
    expect(await project.intelligence.available()).toBe(false);
  });

  it("says a missing built-in server is not installed", async () => {
    const r = await project.call("find_definition", { path: "src/main.ts", symbolName: "Circle" });
    expect(r).toMatchObject({
      isError: false,
      output:
        "No language server for .ts: typescript-language-server was not found (install it, or configure one in settings under lsp.servers).",
    });
  });

  it("says a configured server's program was not found", async () => {
    await writeFile(path.join(project.dir, "main.go"), "package main\n\nfunc main() {}\n");
    const r = await project.call("get_document_symbols", { path: "main.go" });
    expect(r.output).toBe(
      "No language server for .go: no-such-language-server was not found (install it, or configure one in settings under lsp.servers).",
    );
  });

  it("reports a server that exits at start as an error, with what it printed", async () => {
    await writeFile(path.join(project.dir, "a.brk"), "x\n");
    const r = await project.call("get_hover_info", { path: "a.brk", line: 1 });
    expect(r.isError).toBe(true);
    expect(r.output).toContain("/bin/sh did not start: it exited (code 3)");
    expect(r.output).toContain("broken server");
    const again = await project.call("get_hover_info", { path: "a.brk", line: 1 });
    expect(again.output).toBe(r.output);
    expect(project.intelligence.status()).toEqual([
      expect.objectContaining({ id: "broken", state: "failed", restarts: 0 }),
    ]);
  });

  it("stops a server that is still starting when shut down", async () => {
    // A program that never answers `initialize`: only the shutdown can end the wait.
    const silent = new CodeIntelligence({
      environment: project.env,
      builtinServers: false,
      startTimeoutMs: 600_000,
      servers: [
        { id: "silent", command: "/bin/sh", args: ["-c", "exec cat > /dev/null"], extensions: [".sil"] },
      ],
    });
    await writeFile(path.join(project.dir, "a.sil"), "x\n");
    const hover = silent.tools().find((t) => t.definition.name === "get_hover_info")!;
    // A call aborted while its server starts ends at once; the start goes on.
    const abort = new AbortController();
    const aborted = hover.executor({ path: "a.sil", line: 1 }, project.env, {
      toolCallId: "a",
      signal: abort.signal,
    });
    await until(() => silent.status()[0]?.state === "starting");
    abort.abort();
    await expect(aborted).rejects.toThrow("aborted while the language server was starting");
    expect(silent.status()[0]?.state).toBe("starting");

    const pending = hover.executor({ path: "a.sil", line: 1 }, project.env, { toolCallId: "t" });
    await until(() => silent.status()[0]?.state === "starting");
    await silent.shutdown();
    const result = await pending;
    expect(result).toMatchObject({ isError: true });
    // Ended either way: its start stopped, or the servers already shut down when it asked.
    expect(typeof result === "string" ? result : result.output).toMatch(
      /^\/bin\/sh did not start: it exited|^Language servers are shut down\.$/,
    );
    expect(silent.status()[0]?.state).toBe("failed");
  });

  it("leaves an edit's result alone when no server covers the file", async () => {
    const r = await project.call("edit_file", {
      file_path: "src/main.ts",
      old_string: "totalArea(shapes)}",
      new_string: 'totalArea("shapes")}',
    });
    expect(r.isError).toBe(false);
    expect(r.output).not.toContain("language server");
  });
});

describe("a language server killed mid-session", () => {
  let project: LspProject;
  beforeAll(async () => {
    project = await openLspProject("python");
  }, 60_000);
  afterAll(() => project?.close());

  const definition = () =>
    project.call("find_definition", { path: "zoo/keeper.py", symbolName: "Cat", line: 9 });
  const pid = (): number => project.intelligence.status()[0]!.pid!;

  it("is restarted once, and then reported as failed", async () => {
    expect((await definition()).output).toContain("→ 24: class Cat(Animal):");
    const first = pid();
    process.kill(first, "SIGKILL");
    await until(() => project.intelligence.status()[0]!.state === "stopped");

    const afterRestart = await definition();
    expect(afterRestart.output).toContain("→ 24: class Cat(Animal):");
    expect(project.intelligence.status()[0]).toMatchObject({ state: "running", restarts: 1 });
    const second = pid();
    expect(second).not.toBe(first);

    process.kill(second, "SIGKILL");
    await until(() => project.intelligence.status()[0]!.state === "stopped");
    const failed = await definition();
    expect(failed.isError).toBe(true);
    expect(failed.output).toBe(
      "The python language server stopped again after a restart, so it is not restarted any more.",
    );
    // The loop goes on: an edit still works, without diagnostics.
    const edit = await project.call("write_file", { file_path: "zoo/extra.py", content: "X: int = 'x'\n" });
    expect(edit.isError).toBe(false);
    expect(edit.output).not.toContain("language server");
  });
});
