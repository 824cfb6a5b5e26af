import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { globTool } from "../src/tools/glob.js";
import { grepTool } from "../src/tools/grep.js";
import { listDirTool } from "../src/tools/list-dir.js";
import { readFileTool } from "../src/tools/read-file.js";
import { readManyFilesTool } from "../src/tools/read-many-files.js";
import { writeFileTool } from "../src/tools/write-file.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";

// File tools never read the agent's own process data, in any mode (the environment refuses it,
// below any permission layer); grep, glob and list_dir stop at a symlink leading out of the
// project as writes do; and a write checked inside the project lands inside it even while a
// folder on its path is swapped for a symlink to an outside folder.

const CANARY = `canary-agent-key-${process.pid}-9d1e`;
process.env.ATTRACTOR_TEST_CANARY_KEY = CANARY;

let base: string;
let project: string;
let outside: string;
const engines = {
  ripgrep: undefined as unknown as LocalExecutionEnvironment,
  javascript: undefined as unknown as LocalExecutionEnvironment,
};

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "file-boundary-")));
  project = join(base, "project");
  outside = join(base, "outside");
  await mkdir(join(project, "src", "inner"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(project, "src", "a.ts"), `export const key = "${"in-project"}";\n`);
  await writeFile(join(project, "src", "inner", "b.ts"), "export const b = 2;\n");
  await writeFile(join(outside, "secret.txt"), `${CANARY}\n`);
  await symlink("/proc/self/environ", join(project, "envlink"));
  await symlink("/proc/self", join(project, "selfdir"));
  await symlink("/proc/thread-self", join(project, "threadlink"));
  await symlink("/dev/fd", join(project, "fdlink"));
  await symlink(outside, join(project, "outlink"));
  await symlink(join(outside, "secret.txt"), join(project, "outfile"));
  await symlink("src/inner", join(project, "innerlink"));
  engines.ripgrep = new LocalExecutionEnvironment({ workingDirectory: project, grepEngine: "ripgrep" });
  engines.javascript = new LocalExecutionEnvironment({ workingDirectory: project, grepEngine: "javascript" });
});

afterAll(async () => {
  delete process.env.ATTRACTOR_TEST_CANARY_KEY;
  await rm(base, { recursive: true, force: true });
});

const call = async (tool: RegisteredTool, args: Record<string, unknown>, env = engines.ripgrep) =>
  (await tool.executor(args, env, { toolCallId: "t" })) as ToolOutput;

const PROCESS_PATHS: readonly string[] = [
  "/proc/self/environ",
  "/proc/thread-self/environ",
  `/proc/${process.pid}/environ`,
  `/proc/${process.ppid}/environ`,
  "/proc/self/cmdline",
  "/proc/self/fd/0",
  "/proc/self/root/proc/self/environ",
  "/proc/./self/environ",
  "/proc//self/environ",
  "/proc/1/../self/environ",
  "/dev/fd/0",
  "envlink",
  "selfdir/environ",
  "threadlink/environ",
  "fdlink/0",
];

describe("process data: refused by every file tool", () => {
  it.each(PROCESS_PATHS)("read_file %s", async (path) => {
    const out = await call(readFileTool(), { file_path: path });
    expect(out.isError).toBe(true);
    expect(out.output).not.toContain(CANARY);
    expect(out.output).toMatch(/process's own data/);
  });

  it.each([...PROCESS_PATHS, "/proc/self", `/proc/${process.pid}`, "/proc", "/", "selfdir"])(
    "grep %s (ripgrep and the JavaScript engine)",
    async (path) => {
      for (const env of [engines.ripgrep, engines.javascript]) {
        const out = await call(grepTool(), { pattern: "canary-agent-key", path }, env);
        expect(out.output).not.toContain(CANARY);
        expect(out.isError).toBe(true);
      }
    },
  );

  it.each(["/proc/self", "/proc/self/fd", `/proc/${process.ppid}`, "selfdir", "fdlink"])(
    "list_dir and glob %s",
    async (path) => {
      const listed = await call(listDirTool(), { path });
      expect(listed.isError).toBe(true);
      const globbed = await call(globTool(), { pattern: "**/*", path });
      expect(globbed.isError).toBe(true);
    },
  );

  it.each(["/proc/self/environ", "envlink", "selfdir/*"])(
    "read_many_files %s (refused whole)",
    async (path) => {
      const out = await call(readManyFilesTool(), { paths: [path, "src/a.ts"] });
      expect(out.isError).toBe(true);
      expect(out.output).not.toContain(CANARY);
    },
  );

  it("ordinary /proc files and project files are still read", async () => {
    expect((await call(readFileTool(), { file_path: "/proc/cpuinfo", limit: 2 })).isError).toBeFalsy();
    expect((await call(readFileTool(), { file_path: "src/a.ts" })).output).toContain("in-project");
  });
});

describe("symlinks leading out of the project", () => {
  it.each([
    ["grep through a folder link", grepTool(), { pattern: "canary", path: "outlink" }],
    ["grep a file link", grepTool(), { pattern: "canary", path: "outfile" }],
    ["grep below a folder link", grepTool(), { pattern: "canary", path: "outlink/." }],
    ["glob in a folder link", globTool(), { pattern: "*.txt", path: "outlink" }],
    ["list_dir a folder link", listDirTool(), { path: "outlink" }],
  ] as const)("%s is stopped", async (_name, tool, args) => {
    for (const env of [engines.ripgrep, engines.javascript]) {
      const out = await call(tool, args, env);
      expect(out.isError).toBe(true);
      expect(out.output).toMatch(/leads outside the project/);
      expect(out.output).not.toContain(CANARY);
    }
  });

  it("a search of the whole project does not follow them (either engine)", async () => {
    for (const env of [engines.ripgrep, engines.javascript]) {
      const out = await call(grepTool(), { pattern: "canary|export", path: "." }, env);
      expect(out.output).not.toContain(CANARY);
      expect(out.output).toContain("src/a.ts");
    }
  });

  it.each([
    ["a new file under a folder link", "outlink/planted.txt"],
    ["a new folder under a folder link", "outlink/deep/er/planted.txt"],
    ["a file link to an outside file", "outfile"],
  ])("write_file %s is refused and writes nothing outside", async (_name, path) => {
    const before = readdirSync(outside).sort();
    const out = await call(writeFileTool(), { file_path: path, content: "planted\n" });
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/leads outside the project/);
    expect(readdirSync(outside).sort()).toEqual(before);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe(`${CANARY}\n`);
  });

  it("deleting through a folder link is refused; deleting the link itself is not", async () => {
    await expect(engines.ripgrep.deleteFile("outlink/secret.txt")).rejects.toThrow(
      /leads outside the project/,
    );
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe(`${CANARY}\n`);
    await symlink(join(outside, "secret.txt"), join(project, "dropme"));
    await engines.ripgrep.deleteFile("dropme");
    expect(existsSync(join(project, "dropme"))).toBe(false);
    expect(existsSync(join(outside, "secret.txt"))).toBe(true);
  });

  it("links inside the project keep working: grep, list, glob and writes through them", async () => {
    expect((await call(grepTool(), { pattern: "b = 2", path: "innerlink" })).output).toContain("b.ts");
    expect((await call(listDirTool(), { path: "innerlink" })).output).toContain("b.ts");
    expect((await call(globTool(), { pattern: "*.ts", path: "innerlink" })).output).toContain("b.ts");
    const wrote = await call(writeFileTool(), { file_path: "innerlink/new/c.ts", content: "c\n" });
    expect(wrote.isError).toBeFalsy();
    expect(await readFile(join(project, "src", "inner", "new", "c.ts"), "utf8")).toBe("c\n");
  });

  it("an outside path named as itself is left to the permission layer (written as asked)", async () => {
    const target = join(outside, "named.txt");
    const out = await call(writeFileTool(), { file_path: target, content: "ok\n" });
    expect(out.isError).toBeFalsy();
    expect(existsSync(target)).toBe(true);
    await rm(target);
  });
});

/**
 * Swaps `<project>/swap` between a real folder and a symlink to the outside folder, as fast as it
 * can with a ~1 ms pause each way, in another process so the swaps land between any two system
 * calls of the writer.
 */
function startSwapper(folder: string, parked: string, target: string): ChildProcess {
  const script = `
    const fs = require("fs");
    const [folder, parked, target] = process.argv.slice(1);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      try { fs.renameSync(folder, parked); fs.symlinkSync(target, folder); } catch {}
      Atomics.wait(pause, 0, 0, 1);
      try { fs.unlinkSync(folder); fs.renameSync(parked, folder); } catch {}
      Atomics.wait(pause, 0, 0, 1);
    }`;
  return spawn(process.execPath, ["-e", script, folder, parked, target], { stdio: "ignore" });
}

/** Resolves once the swapper has been seen to swap (node takes a while to start). */
async function swapping(folder: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const isLink = await lstat(folder).then(
      (s) => s.isSymbolicLink(),
      () => false,
    );
    if (isLink) return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error("the swapper never swapped");
}

describe("a folder swapped for a symlink while writing", () => {
  it("no write_file lands outside over 400 attempts, and writes inside still succeed", async () => {
    const folder = join(project, "swap");
    const parked = join(project, "swap.parked");
    const target = join(base, "race-target");
    await mkdir(folder);
    await mkdir(target);
    const swapper = startSwapper(folder, parked, target);
    let wrote = 0;
    let refused = 0;
    try {
      await swapping(folder);
      for (let i = 0; i < 400; i++) {
        const out = await call(writeFileTool(), {
          file_path: i % 2 === 0 ? `swap/f${i}.txt` : `swap/sub${i}/f${i}.txt`,
          content: `${i}\n`,
        });
        if (out.isError) refused++;
        else wrote++;
      }
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((r) => swapper.once("exit", r));
    }
    // Whatever the state the swapper stopped in, nothing was created in the outside folder.
    expect(readdirSync(target)).toEqual([]);
    expect(wrote).toBeGreaterThan(0);
    expect(wrote + refused).toBe(400);
  }, 60_000);

  it("no delete through the swapping folder removes the outside file (300 attempts)", async () => {
    const folder = join(project, "swapdel");
    const target = join(base, "del-target");
    await mkdir(folder);
    await mkdir(target);
    await writeFile(join(target, "victim.txt"), "keep\n");
    const swapper = startSwapper(folder, join(project, "swapdel.parked"), target);
    try {
      await swapping(folder);
      for (let i = 0; i < 300; i++) {
        await engines.ripgrep.deleteFile("swapdel/victim.txt").catch(() => {});
        await new Promise((r) => setTimeout(r, 1));
      }
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((r) => swapper.once("exit", r));
    }
    expect(await readFile(join(target, "victim.txt"), "utf8")).toBe("keep\n");
  }, 60_000);

  it("a file swapped for a symlink to an outside file is replaced, not written through", async () => {
    const file = join(project, "swapfile.txt");
    const victim = join(base, "victim.txt");
    await writeFile(file, "mine\n");
    await writeFile(victim, "keep me\n");
    const script = `
      const fs = require("fs");
      const [file, victim] = process.argv.slice(1);
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (;;) {
        try { fs.unlinkSync(file); fs.symlinkSync(victim, file); } catch {}
        Atomics.wait(pause, 0, 0, 1);
        try { fs.unlinkSync(file); fs.writeFileSync(file, "mine\\n"); } catch {}
        Atomics.wait(pause, 0, 0, 1);
      }`;
    const swapper = spawn(process.execPath, ["-e", script, file, victim], { stdio: "ignore" });
    try {
      await swapping(file);
      for (let i = 0; i < 200; i++)
        await call(writeFileTool(), { file_path: "swapfile.txt", content: `${i}\n` });
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((r) => swapper.once("exit", r));
    }
    expect(await readFile(victim, "utf8")).toBe("keep me\n");
  }, 60_000);
});
