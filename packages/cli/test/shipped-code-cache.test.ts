import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { cachedDataVersionTag } from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHIPPED_CACHE_FOLDER } from "../src/launch/code-cache.js";
import {
  buggyProject,
  CLI_PATH,
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  startScriptedModel,
} from "../src/testing/index.js";

// The code cache the build makes and the package ships: a first run, with a new HOME and no cache
// of its own (a container, a CI job, a fleet task), starts the headless command from it.

let model: ScriptedModel;
beforeAll(async () => {
  requireBuiltCli();
  model = await startScriptedModel("anthropic");
});
afterAll(() => model.close());

const bundleDir = dirname(CLI_PATH);

describe("the shipped code cache", () => {
  it("holds the headless command's compiled code, made by this V8 for this build", async () => {
    const manifest = JSON.parse(
      await readFile(join(bundleDir, SHIPPED_CACHE_FOLDER, "manifest.json"), "utf8"),
    );
    expect(manifest.versionTag).toBe(cachedDataVersionTag());
    const source = await readFile(join(bundleDir, "command-headless.cjs"), "utf8");
    expect(manifest.files["command-headless.cjs"]).toBe(source.length);
    const entry = await readFile(join(bundleDir, SHIPPED_CACHE_FOLDER, "command-headless.cjs.v8"));
    expect(entry.length).toBeGreaterThan(100_000);
  });

  it("starts a first run in a new home, which then has no entry of its own to write for the command", async () => {
    const { root, project, remove } = await buggyProject();
    try {
      model.script([
        { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
        { text: "read it" },
      ]);
      const cache = join(root, "cache");
      const result = await runCliProcess(["-p", "read src/math.js"], {
        cwd: project,
        env: cleanEnv(root, { ...model.env(), XDG_CACHE_HOME: cache }),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("read it");
      expect(model.seen()[1]?.toolResults.join("")).toContain("return a - b");
      // V8 took the shipped entry: the run compiled nothing it would cache for the command itself.
      const own = await readdir(join(cache, "attractor", "code-cache")).catch(() => []);
      expect(own.filter((name) => name.startsWith("command-headless.cjs"))).toEqual([]);
    } finally {
      await remove();
    }
  });
});
