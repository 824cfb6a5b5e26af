import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CommandError, LocalExecutionEnvironment, RipgrepMissingError } from "../src/index.js";

// Searches start ripgrep without checking for it first; where it is not installed, "auto" must
// still answer (with the JavaScript engine) and a forced "ripgrep" must say what is missing.
// Its own file: which engine works is remembered per process (per module instance here).
let dir: string;
let emptyBin: string;
const savedPath = process.env.PATH;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "grep-no-rg-"));
  emptyBin = await mkdtemp(join(tmpdir(), "grep-no-rg-bin-"));
  await writeFile(join(dir, "a.ts"), "const add = (a, b) => a + b;\nadd(1, 2);\n");
  process.env.PATH = emptyBin;
  // Not the binary shipped with the package either: only `rg` from PATH, which has none.
  process.env.ATTRACTOR_RIPGREP = "rg";
});
afterAll(async () => {
  process.env.PATH = savedPath;
  delete process.env.ATTRACTOR_RIPGREP;
  await rm(dir, { recursive: true, force: true });
  await rm(emptyBin, { recursive: true, force: true });
});

describe("grep where ripgrep is not installed", () => {
  it("auto falls back to the JavaScript engine, now and on later searches", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    for (let i = 0; i < 2; i++) {
      const result = await env.grep("add\\(", ".");
      expect(result.engine).toBe("javascript");
      expect(result.matches.map((m) => [m.path, m.line])).toEqual([["a.ts", 2]]);
    }
  });

  it("a forced ripgrep engine fails with a clear error", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "ripgrep" });
    const err = await env.grep("add", ".").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RipgrepMissingError);
    expect(err).toBeInstanceOf(CommandError);
    expect((err as Error).message).toBe("ripgrep (rg) is not installed");
  });

  it("glob falls back to the JavaScript walk", async () => {
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    expect((await env.glob("*.ts")).paths).toEqual(["a.ts"]);
  });
});
