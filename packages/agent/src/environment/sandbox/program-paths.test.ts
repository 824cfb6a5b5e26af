import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bwrapArguments } from "./bwrap-args.js";
import { createSandboxPolicy } from "./policy.js";
import { programReadPaths } from "./program-paths.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "program-paths-")));
const modules = join(base, "checkout", "node_modules");
const script = join(modules, "@scope", "server", "dist", "index.js");
const loose = join(base, "tools", "server.mjs");
mkdirSync(join(modules, "@scope", "server", "dist"), { recursive: true });
mkdirSync(join(base, "tools"), { recursive: true });
writeFileSync(script, "");
writeFileSync(loose, "");
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("programReadPaths", () => {
  it("names the node_modules folder of a package script under /tmp, or a loose script's folder", () => {
    expect(programReadPaths(["/usr/bin/node", script, "--flag", loose, "relative/x.js"], base)).toEqual([
      modules,
      join(base, "tools"),
    ]);
  });

  it("names nothing outside the temporary directory, and nothing that does not exist", () => {
    expect(programReadPaths([process.execPath, join(base, "missing.js")], join(base, "tools"))).toEqual([]);
  });

  it("binds them read-only right over the private /tmp, before the writable roots", () => {
    const policy = createSandboxPolicy({ projectDirs: [join(base, "tools")], home: "/nonexistent", env: {} });
    const args = bwrapArguments(policy, {
      cwd: "/",
      tmpDir: "/t",
      disableUserns: false,
      programPaths: [modules],
    });
    const bind = args.findIndex((a, i) => a === "--ro-bind" && args[i + 1] === modules);
    expect(bind).toBeGreaterThan(args.indexOf("/t"));
    expect(bind).toBeLessThan(
      args.findIndex((a, i) => a === "--bind" && args[i + 1] === join(base, "tools")),
    );
  });
});
