// Stale workspaces on real files and processes: a workspace whose worker is alive stays; one
// whose worker died, or whose pid now belongs to another process (a restarted container reuses
// pids), is removed with its agent's process group.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeStaleWorkspaces } from "../src/index.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-ws-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const started = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
};
const workspace = async (name: string, owner: Record<string, unknown>) => {
  await mkdir(join(root, name, "repo"), { recursive: true });
  await writeFile(join(root, name, "owner.json"), JSON.stringify({ host: hostname(), ...owner }));
};

describe.skipIf(process.platform !== "linux")("removeStaleWorkspaces", () => {
  it("keeps a live worker's workspace and removes dead or reused-pid owners' ones, ending their agents", async () => {
    const agent = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    const exited = new Promise((r) => agent.once("exit", r));
    await workspace("task-live", { pid: process.pid, started: started(process.pid) });
    await workspace("task-reused", { pid: process.pid, started: "1", agent: agent.pid });
    await workspace("task-dead", { pid: 2 ** 22 + 1 });
    await workspace("task-other-host", { host: "elsewhere", pid: 2 ** 22 + 1 });
    expect(await removeStaleWorkspaces(root)).toBe(2);
    expect((await readdir(root)).sort()).toEqual(["task-live", "task-other-host"]);
    await exited;
    expect(agent.signalCode).toBe("SIGKILL");
  });
});
