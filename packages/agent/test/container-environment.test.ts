// Shell commands in a running container (real Podman, an image made from this machine's programs):
// they run in the image, in the same working directory (mounted), with the run's variables but
// not the host's PATH, without network when the container has none; their output arrives while
// they run; a timeout ends them inside the container too, not only the runtime's exec client.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContainerExecutionEnvironment } from "../src/index.js";
import { startTestPodman } from "../src/testing/index.js";

const podman = startTestPodman();
const available = !("unavailable" in podman);
let dir: string;
let name: string;
let env: ContainerExecutionEnvironment;

const run = (args: string[]) =>
  execFileSync("podman", args, { env: available ? podman.env : {}, encoding: "utf8" }).trim();

beforeAll(async () => {
  if (!available) return;
  dir = await mkdtemp(join(tmpdir(), "attractor-container-env-"));
  name = `attractor-test-${process.pid}`;
  run([
    "run",
    "-d",
    "--name",
    name,
    "--network",
    "none",
    "-v",
    `${dir}:${dir}`,
    podman.image,
    "sleep",
    "infinity",
  ]);
  env = new ContainerExecutionEnvironment({
    workingDirectory: dir,
    target: { runtime: "podman", container: name },
    baseEnv: { ...podman.env, GREETING: "from the run" },
  });
}, 120_000);

afterAll(async () => {
  if (!available) return;
  await env.cleanup();
  podman.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!available)(
  `commands in a container${available ? "" : ` (skipped: ${(podman as { unavailable: string }).unavailable})`}`,
  () => {
    it("run in the image, in the working directory, with the run's variables, and their exit code", async () => {
      if (!available) return;
      const result = await env.execCommand(
        'cat /etc/attractor-image; pwd; echo "$GREETING"; echo "path=$PATH"; echo oops >&2; echo made > made.txt; exit 3',
      );
      const lines = result.stdout.trim().split("\n");
      expect(lines[0]).toBe(podman.marker);
      expect(lines[1]).toBe(dir);
      expect(lines[2]).toBe("from the run");
      // The image's PATH, not the host's.
      expect(lines[3]).not.toBe(`path=${process.env.PATH}`);
      expect(result.stderr.trim()).toBe("oops");
      expect(result.exitCode).toBe(3);
      // The working directory is the host's, mounted: file tools see what commands wrote.
      expect(await readFile(join(dir, "made.txt"), "utf8")).toBe("made\n");
    }, 30_000);

    it("have no network when the container has none", async () => {
      if (!available) return;
      const result = await env.execCommand("sed -n 's/^ *\\([^:]*\\):.*/\\1/p' /proc/net/dev");
      expect(result.stdout.trim()).toBe("lo");
    }, 30_000);

    it("stream their output while they run", async () => {
      if (!available) return;
      let firstAt: number | undefined;
      const result = await env.execCommand("echo first; sleep 2; echo second", {
        onOutput: () => {
          firstAt ??= Date.now();
        },
      });
      const ended = Date.now();
      expect(result.stdout).toBe("first\nsecond\n");
      // What was written before the two-second pause was heard well before the command ended.
      expect(ended - (firstAt ?? ended)).toBeGreaterThan(1_000);
    }, 30_000);

    it("a timeout ends the command inside the container, what it started included", async () => {
      if (!available) return;
      const SLEEPING = /sleep 30[01]/;
      const processes = () =>
        run([
          "exec",
          name,
          "/bin/sh",
          "-c",
          "for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null; echo; done",
        ]).replaceAll("\0", " "); // a process's cmdline separates its arguments with NULs
      const pending = env.execCommand("sleep 300 & sleep 301", { timeoutMs: 2_500 });
      await new Promise((r) => setTimeout(r, 1_500));
      // Both sleeps run in the container, where the check below looks for them.
      expect(processes()).toMatch(SLEEPING);
      const result = await pending;
      expect(result.timedOut).toBe(true);
      // The kill inside the container follows SIGTERM within about a second.
      const deadline = Date.now() + 10_000;
      let left = "";
      do {
        await new Promise((r) => setTimeout(r, 250));
        left = processes();
      } while (SLEEPING.test(left) && Date.now() < deadline);
      expect(left).not.toMatch(SLEEPING);
    }, 30_000);
  },
);
