// Programs started by bare name never come from the project: not through a relative PATH entry
// (`.`), nor through an absolute PATH entry inside the project (`<project>/bin`).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { absolutePath, LocalExecutionEnvironment, programOnPath } from "../src/index.js";

let project: string;
const marker = () => join(project, "..", `${project.split("/").pop()}-planted-ran`);

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "program-on-path-"));
  await mkdir(join(project, "bin"));
  for (const file of ["cat", "bin/cat"])
    await writeFile(join(project, file), `#!/bin/sh\ntouch '${marker()}'\n`, { mode: 0o755 });
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(marker(), { force: true });
});

describe("programOnPath", () => {
  it("skips relative entries and, when told, the project's folders", () => {
    const path = `.:${project}/bin:/usr/bin:/bin`;
    expect(programOnPath("cat", path, project)).toMatch(/^\/(usr\/)?bin\/cat$/);
    expect(programOnPath("cat", path)).toBe(join(project, "bin", "cat"));
    expect(programOnPath("no-such-program-here", path, project)).toBe("no-such-program-here");
    expect(absolutePath(path, project)).toBe("/usr/bin:/bin");
  });

  it("a long-lived process started by name with . and a project folder in PATH runs the system's program", async () => {
    const env = new LocalExecutionEnvironment({
      workingDirectory: project,
      baseEnv: { PATH: `.:${project}/bin:/usr/bin:/bin` },
    });
    const child = await env.startProcess("cat", []);
    child.stdin.end("hello");
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    await child.exited;
    expect(out).toBe("hello");
    expect(existsSync(marker())).toBe(false);
    await expect(env.startProcess("no-such-program-here", [])).rejects.toThrow(/not found/);
    await env.cleanup();
  });
});
