// A generated source tree for the search benchmarks: FILES files of 32 lines in 25 packages,
// TypeScript and JavaScript mixed, every line an import or an export (a common pattern), one file
// in 997 with a rare token, and a .gitignore.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Writes the tree under a new temporary directory and returns its path. */
export function sourceTree(files) {
  const dir = mkdtempSync(join(tmpdir(), "bench-tree-"));
  for (let d = 0; d < files / 100; d++) {
    const sub = join(dir, `pkg${d % 25}`, `mod${d}`, "src");
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 100; f++) {
      const lines = ['import { helper } from "../lib";'];
      for (let i = 0; i < 30; i++) lines.push(`export const v${i} = helper(${d}, ${f}, ${i});`);
      if ((d * 100 + f) % 997 === 0) lines.push("// rareNeedle here");
      writeFileSync(join(sub, `file${f}.${f % 3 ? "ts" : "js"}`), `${lines.join("\n")}\n`);
    }
  }
  writeFileSync(join(dir, ".gitignore"), "dist/\n");
  return dir;
}

/** Median wall time of `runs` calls after one warm-up call, in ms. */
export async function median(fn, runs) {
  await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}
