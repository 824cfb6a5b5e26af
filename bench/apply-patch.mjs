// apply_patch of 200 hunks on a 20,000-line file, against baselines measured in the same run:
// the `diff` package applying the equivalent unified diff, and a plain rebuild of the file from
// known line positions (the least work any patcher can do). Then one patch of 3 hunks on a
// 10,000-line tab-indented file, clean, with its hunks written with spaces for tabs (matched by
// re-expressing the indentation), and with a stale context line (refused, with the closest region
// of the file found for the message), each against diff.applyPatch on the clean diff.
// Run after `npm run build`: node bench/apply-patch.mjs
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPatch, applyPatch as diffApplyPatch } from "diff";
import { applyPatch, LocalExecutionEnvironment, parsePatch } from "../packages/agent/dist/index.js";
import { applyChunks } from "../packages/agent/dist/internals.js";

const LINES = 20_000;
const HUNKS = 200;
const RUNS = Number(process.env.RUNS ?? 30);
const STEP = LINES / HUNKS;

const original = Array.from(
  { length: LINES },
  (_, i) => `    value_${i} = compute(${i}, "item ${i}")  # line ${i}`,
);
const changedAt = Array.from({ length: HUNKS }, (_, h) => h * STEP + STEP / 2);
const modified = [...original];
for (const at of changedAt) modified[at] = `    value_${at} = compute_fast(${at})  # changed`;
const originalText = `${original.join("\n")}\n`;
const modifiedText = `${modified.join("\n")}\n`;

const body = ["*** Begin Patch", "*** Update File: big.py"];
for (const at of changedAt) {
  body.push("@@");
  for (let i = at - 3; i < at; i++) body.push(` ${original[i]}`);
  body.push(`-${original[at]}`, `+${modified[at]}`);
  for (let i = at + 1; i <= at + 3; i++) body.push(` ${original[i]}`);
}
body.push("*** End Patch");
const v4a = body.join("\n");
const unified = createPatch("big.py", originalText, modifiedText, undefined, undefined, { context: 3 });

function median(fn) {
  const times = [];
  for (let i = 0; i < 3; i++) fn(); // warm-up
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
async function medianAsync(fn) {
  const times = [];
  for (let i = 0; i < 3; i++) await fn();
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const chunks = parsePatch(v4a).operations[0].chunks;
if (applyChunks(originalText, chunks, "big.py").content !== modifiedText)
  throw new Error("v4a result differs");
if (diffApplyPatch(originalText, unified) !== modifiedText) throw new Error("diff result differs");

const rebuild = () => {
  const lines = originalText.split("\n");
  for (const at of changedAt) lines[at] = modified[at];
  return lines.join("\n");
};
const tRebuild = median(rebuild);
const tDiff = median(() => diffApplyPatch(originalText, unified));
const tParse = median(() => parsePatch(v4a));
const tChunks = median(() => applyChunks(originalText, parsePatch(v4a).operations[0].chunks, "big.py"));

const dir = mkdtempSync(join(tmpdir(), "attractor-bench-"));
const path = join(dir, "big.py");
const env = new LocalExecutionEnvironment({ workingDirectory: dir });
const tTool = await medianAsync(async () => {
  writeFileSync(path, originalText);
  await applyPatch(v4a, env);
});
const tWriteOnly = await medianAsync(async () => {
  writeFileSync(path, originalText);
  await env.writeFile("big.py", modifiedText);
});
if (readFileSync(path, "utf8") !== modifiedText) throw new Error("file result differs");
rmSync(dir, { recursive: true, force: true });

const ms = (t) => `${t.toFixed(2)} ms`;
console.log(`apply_patch: ${HUNKS} hunks on a ${LINES}-line file, median of ${RUNS} runs`);
console.log(`  baseline  plain rebuild at known lines      ${ms(tRebuild)}`);
console.log(`  baseline  diff.applyPatch (unified diff)    ${ms(tDiff)}`);
console.log(`  ours      parsePatch                        ${ms(tParse)}`);
console.log(
  `  ours      parse + match + apply in memory   ${ms(tChunks)}  (${(tChunks / tDiff).toFixed(2)}x diff.applyPatch, ${(tChunks / tRebuild).toFixed(1)}x rebuild)`,
);
console.log(`  baseline  atomic write of the result        ${ms(tWriteOnly)}`);
console.log(
  `  ours      applyPatch on a real file         ${ms(tTool)}  (${(tTool / tWriteOnly).toFixed(2)}x the bare write)`,
);

// ---- one patch on a 10,000-line tab-indented file: clean, noisy, refused ----
const SMALL = 10_000;
const goLines = Array.from({ length: SMALL }, (_, i) =>
  i % 10 === 0
    ? `func f${i}() {`
    : i % 10 === 9
      ? "}"
      : `\t${i % 3 === 0 ? "\t" : ""}v${i} := call(${i}, "x")`,
);
const goText = `${goLines.join("\n")}\n`;
const goAt = [2_003, 5_004, 8_005];
const goModified = [...goLines];
for (const at of goAt) goModified[at] = `${goLines[at]} // changed`;
const goModifiedText = `${goModified.join("\n")}\n`;
const goPatch = (mapLine) => {
  const out = ["*** Begin Patch", "*** Update File: big.go"];
  for (const at of goAt) {
    out.push("@@");
    for (let i = at - 3; i < at; i++) out.push(` ${mapLine(goLines[i], i)}`);
    out.push(`-${mapLine(goLines[at], at)}`, `+${mapLine(goModified[at], at)}`);
    for (let i = at + 1; i <= at + 3; i++) out.push(` ${mapLine(goLines[i], i)}`);
  }
  out.push("*** End Patch");
  return out.join("\n");
};
const spaced = (line) => line.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length));
const cleanPatch = goPatch((line) => line);
const swappedPatch = goPatch(spaced);
const stalePatch = goPatch((line, i) => (i === goAt[2] - 1 ? `${line}Old` : line));
const goUnified = createPatch("big.go", goText, goModifiedText, undefined, undefined, { context: 3 });
const applyGo = (v4) => applyChunks(goText, parsePatch(v4).operations[0].chunks, "big.go");
if (applyGo(cleanPatch).content !== goModifiedText) throw new Error("clean result differs");
if (applyGo(swappedPatch).content !== goModifiedText) throw new Error("re-indented result differs");
let refused = false;
try {
  applyGo(stalePatch);
} catch {
  refused = true;
}
if (!refused) throw new Error("the stale hunk was applied");
const refuse = () => {
  try {
    applyGo(stalePatch);
  } catch {}
};
const tGoDiff = median(() => diffApplyPatch(goText, goUnified));
const tGoClean = median(() => applyGo(cleanPatch));
const tGoSwapped = median(() => applyGo(swappedPatch));
const tGoStale = median(refuse);
const vsDiff = (t) => `(${(t / tGoDiff).toFixed(2)}x diff.applyPatch)`;
console.log(
  `\napply_patch: 3 hunks on a ${SMALL}-line tab-indented file, median of ${RUNS} runs (target: under 20 ms)`,
);
console.log(`  baseline  diff.applyPatch (clean unified diff)  ${ms(tGoDiff)}`);
console.log(`  ours      clean hunks                           ${ms(tGoClean)}  ${vsDiff(tGoClean)}`);
console.log(`  ours      tabs written as spaces (re-indented)  ${ms(tGoSwapped)}  ${vsDiff(tGoSwapped)}`);
console.log(`  ours      stale context line (refused)          ${ms(tGoStale)}  ${vsDiff(tGoStale)}`);
