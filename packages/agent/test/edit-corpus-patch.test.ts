// Runs the development corpus of real commits (clean and with the noise models write) through the
// built apply_patch tool and fails on any silently wrong edit. The corpus lives next to the
// checkout, not in it; without it the test is skipped and says why.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const runner = resolve(root, "../shared/edit-corpus/run.mjs");
const built = join(root, "packages/agent/dist/index.js");
const missing = !existsSync(runner)
  ? ` (skipped: the edit corpus runner ${runner} is not there)`
  : !existsSync(built)
    ? " (skipped: packages/agent/dist is not built; npm test builds it first)"
    : "";

describe.skipIf(missing !== "")(`edit corpus, apply_patch${missing}`, () => {
  it("makes no silently wrong edit", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [runner, "--tool", "patch", "--show", "5"],
      {
        cwd: root,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const last = /edit-corpus: exact (\d+)\/(\d+), wrong (\d+)/.exec(stdout);
    expect(last, stdout.slice(-2000)).not.toBeNull();
    const [, exact, total, wrong] = last as RegExpExecArray;
    expect(Number(total)).toBeGreaterThan(0);
    expect(Number(wrong), `exact ${exact}/${total}, wrong ${wrong}\n${stdout}`).toBe(0);
  }, 180_000);
});
