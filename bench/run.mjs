// Runs every bench/*.mjs except this one, one after another, and prints their output.
// Run after `npm run build`: npm run bench   (or: node bench/run.mjs [name-filter])
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== self && (!filter || f.includes(filter)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ["--expose-gc", join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
  console.log(
    `(${file}: ${r.status === 0 ? "ok" : `exit ${r.status ?? r.signal}`}, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
}
if (failed > 0) process.exitCode = 1;
