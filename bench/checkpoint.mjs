// How long a modifying tool call waits for its checkpoint on a generated project of FILES files
// (50,000 by default), one edit after another (RUNS=15):
//   - before (baseline, same run): the whole-tree snapshot the checkpoints used to take before
//     every call, `git add --all` and `git write-tree` into a side index of a shadow repository
//   - after: the checkpoint manager's snapshotFiles, which records the call's target files and
//     writes the whole-tree checkpoint in the background (target: at most 5 ms)
//   - the first edit in a fresh shadow repository, both ways (the whole tree is hashed once)
//   - what a shell command that can change files waits: a whole-tree snapshot, taken now, till
//     its commit is written (snapshot) or till the tree is read (snapshotStaged, the tool guard's)
//   - how long the background write of an edit's checkpoint takes (off the request path)
// Finally undo is checked to restore every edit. Run after `npm run build`: node bench/checkpoint.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceTree } from "./support/source-tree.mjs";

const FILES = Number(process.env.FILES ?? 50_000);
const RUNS = Number(process.env.RUNS ?? 15);
const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "runtime", "dist");
const { createCheckpointManager } = await import(join(dist, "checkpoints", "index.js"));

const project = sourceTree(FILES);
const home = mkdtempSync(join(tmpdir(), "bench-checkpoint-home-"));
const sideGit = mkdtempSync(join(tmpdir(), "bench-checkpoint-side-"));
const targets = Array.from(
  { length: RUNS + 1 },
  (_, i) => `pkg${i % 25}/mod${i}/src/file${i % 100}.${i % 3 ? "ts" : "js"}`,
);
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], max: s.at(-1) };
};
const ms = (x) => `${x.toFixed(2)} ms`;

// ---- before: the whole tree, as the checkpoints used to snapshot it ----
execFileSync("git", ["init", "--quiet", "--bare", sideGit]);
const git = (args) =>
  execFileSync(
    "git",
    ["-c", "core.fsmonitor=false", `--git-dir=${sideGit}`, `--work-tree=${project}`, ...args],
    {
      cwd: project,
      env: { ...process.env, GIT_INDEX_FILE: join(sideGit, "side-index") },
    },
  );
const wholeTree = () => {
  const t = performance.now();
  git(["add", "--all", "--ignore-errors", "--", "."]);
  git(["write-tree"]);
  return performance.now() - t;
};
const firstBefore = wholeTree();
const before = [];
for (let i = 0; i < RUNS; i++) {
  before.push(wholeTree());
  writeFileSync(join(project, targets[i]), `// before ${i}\n`, { flag: "a" });
}

// ---- after: snapshotFiles, then the edit, then the next call at once ----
const manager = await createCheckpointManager({ projectRoot: project, home });
const originals = new Map(targets.map((t) => [t, readFileSync(join(project, t), "utf8")]));
let t = performance.now();
const first = await manager.snapshotFiles({ label: "first", toolName: "edit_file" }, [targets[0]], "c-first");
const firstAfter = performance.now() - t;
writeFileSync(join(project, targets[0]), "// first\n", { flag: "a" });
manager.changeMade("c-first");
t = performance.now();
await first.committed;
const firstBackground = performance.now() - t;

const after = [];
const committed = [];
for (let i = 1; i <= RUNS; i++) {
  const path = targets[i];
  t = performance.now();
  const r = await manager.snapshotFiles({ label: `edit ${i}`, toolName: "edit_file" }, [path], `c${i}`);
  after.push(performance.now() - t);
  committed.push(r.committed);
  writeFileSync(join(project, path), `// after ${i}\n`, { flag: "a" });
  manager.changeMade(`c${i}`);
  // A model answering within a few milliseconds: the next edit comes while git may still run.
  await new Promise((r) => setTimeout(r, 5));
}
t = performance.now();
await Promise.all(committed);
const drain = performance.now() - t;

// One edit alone, to time its background write.
t = performance.now();
const lone = await manager.snapshotFiles({ label: "lone" }, [targets[0]], "c-lone");
writeFileSync(join(project, targets[0]), "// lone\n", { flag: "a" });
manager.changeMade("c-lone");
await lone.committed;
const background = performance.now() - t;

// A shell command that can change files: the whole tree, now, committed before the command
// starts (snapshot) or while it runs (snapshotStaged, what the tool guard waits for), alone or
// right after an edit (whose recorded change is written with it).
const shell = [];
const shellStaged = [];
const shellAfterEdit = [];
const shellStagedAfterEdit = [];
for (let i = 0; i < 10; i++) {
  const staged = i % 2 === 1;
  for (const afterEdit of [false, true]) {
    if (afterEdit) {
      await manager.snapshotFiles({ label: `edit before shell ${i}` }, [targets[2]], `s${i}`);
      writeFileSync(join(project, targets[2]), `// edit before shell ${i}\n`, { flag: "a" });
      manager.changeMade(`s${i}`);
    } else writeFileSync(join(project, targets[1]), `// shell ${i}\n`, { flag: "a" });
    const meta = { label: `shell ${i}`, toolName: "shell" };
    t = performance.now();
    let waited;
    if (staged) {
      const { committed } = await manager.snapshotStaged(meta);
      waited = performance.now() - t;
      await committed;
    } else {
      await manager.snapshot(meta);
      waited = performance.now() - t;
    }
    (afterEdit ? (staged ? shellStagedAfterEdit : shellAfterEdit) : staged ? shellStaged : shell).push(
      waited,
    );
  }
}

// Every edit is undone, newest first, down to the original files.
let undos = 0;
while (await manager.undo()) undos++;
const restored = targets.every((p) => readFileSync(join(project, p), "utf8") === originals.get(p));

const b = stats(before);
const a = stats(after);
console.log(`checkpoint wait per modifying call, ${FILES} files, ${RUNS} edits:`);
console.log(`  before (whole tree: git add --all + write-tree)  median ${ms(b.median)}  max ${ms(b.max)}`);
console.log(
  `  after  (snapshotFiles: targets now, tree later)   median ${ms(a.median)}  max ${ms(a.max)}  ` +
    `(${(a.median / b.median).toFixed(4)}x before; target <= 5 ms: ${a.max <= 5 ? "met" : "NOT met"})`,
);
console.log(`  first edit in a new shadow repository: before ${ms(firstBefore)}, after ${ms(firstAfter)}`);
console.log(
  `  background write: first ${ms(firstBackground)}, one edit ${ms(background)}, ${RUNS} quick edits drained ${ms(drain)} after the last`,
);
const wait = (label, xs, ys) =>
  console.log(
    `  ${label}: whole commit ${ms(stats(xs).median)}, staged only ${ms(stats(ys).median)} (medians; ${(stats(ys).median / stats(xs).median).toFixed(2)}x)`,
  );
console.log("  shell command that can change files, waits before it runs (whole tree read now):");
wait("alone", shell, shellStaged);
wait("right after an edit", shellAfterEdit, shellStagedAfterEdit);
console.log(`  undo: ${undos} steps back, original files ${restored ? "restored" : "NOT restored"}`);
rmSync(project, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
rmSync(sideGit, { recursive: true, force: true });
if (!restored) process.exitCode = 1;
