import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The edit corpus (real commits turned into edit_file calls, clean and with the noise models
// produce) sits next to the project checkout; its runner applies every call through the built
// edit_file tool and compares each result byte for byte with the post-commit file.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const runner = resolve(root, "../shared/edit-corpus/run.mjs");
const dist = join(root, "packages/agent/dist/index.js");

// The newest file with this ending under dir (test files left out).
function newest(dir: string, ending: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) time = Math.max(time, newest(path, ending));
    else if (entry.name.endsWith(ending) && !entry.name.includes(".test.")) {
      time = Math.max(time, statSync(path).mtimeMs);
    }
  }
  return time;
}

const skipReason = !existsSync(runner)
  ? "the edit corpus (../shared/edit-corpus/run.mjs beside the checkout) is not present"
  : !existsSync(dist)
    ? "packages/agent is not built (run npm run build)"
    : "";

describe.skipIf(skipReason !== "")(
  `edit_file over the edit corpus${skipReason && ` (skipped: ${skipReason})`}`,
  () => {
    it("makes no silently wrong edit", { timeout: 300_000 }, async () => {
      const built = newest(join(root, "packages/agent/dist/tools"), ".js");
      const edits = newest(join(root, "packages/agent/src/tools"), ".ts");
      expect(
        built,
        "packages/agent/dist is older than its sources: run npm run build",
      ).toBeGreaterThanOrEqual(edits);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [runner, "--tool", "edit", "--show", "5", "--outcome", "wrong"],
        {
          cwd: root,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      const last = stdout.trim().split("\n").at(-1) ?? "";
      const m = /^edit-corpus: exact (\d+)\/(\d+), wrong (\d+)$/.exec(last);
      expect(m, `the runner's last line: ${last}`).not.toBeNull();
      const [, exact, total, wrong] = (m as RegExpExecArray).map(Number);
      expect(wrong, stdout).toBe(0);
      // Refusing everything would also make no wrong edit: most calls must still be carried out.
      expect(exact).toBeGreaterThan((total as number) * 0.8);
    });
  },
);
