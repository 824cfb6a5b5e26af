import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confinedEnvironment } from "../src/environment/confined.js";
import { CommandError } from "../src/environment/errors.js";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { readOnlyEnvironment } from "../src/environment/read-only.js";
import { tempDir } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
});
afterAll(() => remove());

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("startProcess: a long-lived program with piped stdio", () => {
  it("talks over stdin and stdout in the working directory, and stops when killed", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    const proc = await env.startProcess("/bin/sh", ["-c", 'pwd; while read line; do echo "got $line"; done']);
    const chunks: string[] = [];
    proc.stdout.on("data", (c: Buffer) => chunks.push(c.toString()));
    proc.stdin.write("hello\n");
    while (!chunks.join("").includes("got hello")) await once(proc.stdout, "data");
    expect(chunks.join("")).toContain(`${dir}\n`);
    proc.kill();
    expect(await proc.exited).toEqual({ exitCode: null, signal: "SIGTERM" });
  });

  it("rejects with CommandError when the program does not exist", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    await expect(env.startProcess("no-such-program-here", [])).rejects.toBeInstanceOf(CommandError);
  });

  it("is killed, with what it started, by cleanup()", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    const proc = await env.startProcess("/bin/sh", ["-c", "sleep 300 & echo $!; wait"]);
    const [first] = (await once(proc.stdout, "data")) as [Buffer];
    const child = Number(first.toString().trim());
    expect(alive(child)).toBe(true);
    await env.cleanup();
    await proc.exited;
    while (alive(child)) await new Promise((r) => setTimeout(r, 20));
    expect(alive(child)).toBe(false);
  });

  it("passes through the read-only and confined wrappers", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    for (const wrapped of [readOnlyEnvironment(env), confinedEnvironment(env)]) {
      const proc = await wrapped.startProcess!("/bin/sh", ["-c", "echo ok"]);
      const [out] = (await once(proc.stdout, "data")) as [Buffer];
      expect(out.toString()).toBe("ok\n");
      await proc.exited;
    }
    await expect(
      confinedEnvironment(env).startProcess!("/bin/true", [], { workingDir: "/" }),
    ).rejects.toThrow(/outside/i);
  });
});
