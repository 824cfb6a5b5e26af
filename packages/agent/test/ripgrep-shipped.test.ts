import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment, ripgrepCommand } from "../src/index.js";

// Users without a system ripgrep get the one the package ships (@vscode/ripgrep's per-platform
// package, from the npm registry). Its own file: the binary found is remembered per process.
let dir: string;
let emptyBin: string;
const savedPath = process.env.PATH;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rg-shipped-"));
  emptyBin = await mkdtemp(join(tmpdir(), "rg-shipped-bin-"));
  await writeFile(join(dir, "a.ts"), "const add = (a, b) => a + b;\nadd(1, 2);\n");
  await writeFile(join(dir, "b.md"), "add\n");
  process.env.PATH = emptyBin;
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await rm(dir, { recursive: true, force: true });
  await rm(emptyBin, { recursive: true, force: true });
});

describe("the ripgrep shipped with the package", () => {
  it("is found without rg on PATH and runs", () => {
    const command = ripgrepCommand();
    expect(command).toMatch(/@vscode[\\/]ripgrep-[a-z0-9]+-[a-z0-9]+[\\/]bin[\\/]rg(\.exe)?$/);
    const version = spawnSync(command, ["--version"], { encoding: "utf8" });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^ripgrep \d+\.\d+/);
  });

  it("answers grep and glob", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "ripgrep" });
    const found = await env.grep("add\\(", ".");
    expect(found.engine).toBe("ripgrep");
    expect(found.matches.map((m) => [m.path, m.line])).toEqual([["a.ts", 2]]);
    expect((await env.glob("*.ts")).paths).toEqual(["a.ts"]);
  });
});
