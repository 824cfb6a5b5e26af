import { spawn } from "node:child_process";
import { lstatSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutionEnvironment, type ToolOutput, writeFileTool } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPermissionPolicy } from "../src/permissions/index.js";

// write_file in auto-edit, checked by the permission policy and then run, while another process
// swaps a project folder for a symlink to an outside folder every millisecond or two: the check
// and the write happen at different moments, and no write may land outside.

let base: string;
let project: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "write-race-")));
  project = join(base, "project");
  outside = join(base, "outside");
  await mkdir(join(project, "swap"), { recursive: true });
  await mkdir(outside);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("write_file in auto-edit against a swapping symlink", () => {
  it("0 of 300 writes land outside; the ones checked inside are written inside or refused", async () => {
    const script = `
      const fs = require("fs");
      const [folder, parked, target] = process.argv.slice(1);
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (;;) {
        try { fs.renameSync(folder, parked); fs.symlinkSync(target, folder); } catch {}
        Atomics.wait(pause, 0, 0, 2);
        try { fs.unlinkSync(folder); fs.renameSync(parked, folder); } catch {}
        Atomics.wait(pause, 0, 0, 2);
      }`;
    const swapper = spawn(
      process.execPath,
      ["-e", script, join(project, "swap"), join(project, "swap.parked"), outside],
      { stdio: "ignore" },
    );
    const policy = createPermissionPolicy({ mode: "auto-edit", projectRoot: project });
    const env = new LocalExecutionEnvironment({ workingDirectory: project });
    const tool = writeFileTool();
    const verdicts = { allow: 0, ask: 0, deny: 0 };
    try {
      // Node takes a while to start: the race begins once the folder has been seen swapped.
      for (
        let i = 0;
        i < 2000 && !lstatSync(join(project, "swap"), { throwIfNoEntry: false })?.isSymbolicLink();
        i++
      )
        await new Promise((r) => setTimeout(r, 1));
      for (let i = 0; i < 300; i++) {
        const args = { file_path: `swap/f${i}.txt`, content: `${i}\n` };
        const evaluation = await policy.evaluate({
          callId: `c${i}`,
          toolName: "write_file",
          arguments: args,
        });
        verdicts[evaluation.behavior]++;
        // An ask is answered yes, as a hurried user would: the write must still not land outside.
        if (evaluation.behavior !== "deny")
          (await tool.executor(args, env, { toolCallId: `c${i}` })) as ToolOutput;
      }
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((r) => swapper.once("exit", r));
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(verdicts.allow).toBeGreaterThan(0);
  }, 60_000);
});
