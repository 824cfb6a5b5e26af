import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment, ripgrepCommand } from "../src/index.js";

// rg is started in the folder it searches. With a relative PATH entry (`.`, as some users have)
// and rg taken by name, the searched project's own `rg` must not be the one that runs.
// Its own file: the command is resolved once per process (per module instance here).
let project: string;
const marker = join(tmpdir(), `rg-planted-${process.pid}`);
const saved = { path: process.env.PATH, rg: process.env.ATTRACTOR_RIPGREP };
const systemRg = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
})();

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "rg-relative-"));
  await writeFile(join(project, "a.ts"), "export const needle = 1;\n");
  await writeFile(join(project, "rg"), `#!/bin/sh\ntouch '${marker}'\n`);
  await chmod(join(project, "rg"), 0o755);
  process.env.PATH = `.:${dirname(systemRg)}:/usr/bin:/bin`;
  process.env.ATTRACTOR_RIPGREP = "rg";
});
afterAll(async () => {
  process.env.PATH = saved.path;
  if (saved.rg === undefined) delete process.env.ATTRACTOR_RIPGREP;
  else process.env.ATTRACTOR_RIPGREP = saved.rg;
  await rm(project, { recursive: true, force: true });
  await rm(marker, { force: true });
});

describe.skipIf(systemRg === "")("ripgrep taken by name", () => {
  it("comes from an absolute PATH folder, never the project's own rg", async () => {
    expect(ripgrepCommand()).toBe(systemRg);
    const env = new LocalExecutionEnvironment({ workingDirectory: project, grepEngine: "ripgrep" });
    const found = await env.grep("needle", ".");
    expect(found.matches.map((m) => m.path)).toEqual(["a.ts"]);
    expect((await env.glob("*.ts")).paths).toEqual(["a.ts"]);
    expect(existsSync(marker)).toBe(false);
  });
});
