// The shell permission check and permission rules: (1) loading the bash parser (once per process,
// on the first shell check), (2) judging a typical and a long shell line, the fifty everyday lines
// of test/fixtures/everyday-commands.json and option-heavy lines, against the baseline of
// tree-sitter parsing the same line alone, (3) matching pathological rule patterns (`e*a*a*…*c`)
// with our linear matchers, against picomatch's backtracking regular expression on a far shorter
// input (it grows exponentially; the 78 s stall of the old matcher was of this kind).
// Run after `npm run build`: node bench/permissions.mjs   (RUNS=…)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli");
const { assessCommandLine, commandPatternMatches, loadBashParser } = await import(
  join(cli, "dist", "permissions", "index.js")
);
const { compileGlob } = await import(join(cli, "dist", "permissions", "glob-matcher.js"));
const picomatch = createRequire(join(cli, "package.json"))("picomatch");

const RUNS = Number(process.env.RUNS ?? 200);

function time(fn, runs = RUNS) {
  for (let i = 0; i < 50; i++) fn();
  const t = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return (performance.now() - t) / runs;
}

let t = performance.now();
const parser = await loadBashParser();
console.log(
  `load the bash parser (web-tree-sitter + grammar, once): ${(performance.now() - t).toFixed(1)} ms`,
);

const context = { cwd: cli, projectRoot: cli };
const lines = {
  typical: "git status && npm test -- --watch=false 2>&1 | tail -20",
  long: Array.from(
    { length: 50 },
    (_, i) => `for f in src/*.ts; do grep -n "x${i}" "$f" > /dev/null && echo $f; done`,
  ).join("; "),
};
for (const [name, line] of Object.entries(lines)) {
  const judged = time(() => assessCommandLine(line, context));
  const parsed = time(() => parser.parse(line).delete());
  console.log(
    `judge the ${name} line (${line.length} chars): ${judged.toFixed(3)} ms; tree-sitter parse alone ${parsed.toFixed(3)} ms; ratio ${(judged / parsed).toFixed(1)}x`,
  );
}

// Every line of an everyday session and lines heavy with options (abbreviations, clusters, git's
// diff options) and bulk actions: each line judged, mean and slowest, against parsing it alone.
const everyday = JSON.parse(readFileSync(join(cli, "test", "fixtures", "everyday-commands.json"), "utf8"));
const heavy = [
  "git log --oneline --graph --decorate --all --first-parent --no-merges --since=2.weeks --author=me --stat --name-status -- src",
  "git diff --stat --patch --word-diff --color-moved --ignore-all-space --diff-filter=AM -U10 HEAD~3 -- src/a.ts",
  "sort -k2,2 -t, -nru --buffer-size=1M --paral=2 src/a.ts | uniq -c | sort -rn | head -20",
  "rg -n -i -C2 -g '*.ts' --type-not=js --max-count=5 -e foo -e bar src",
  "find . -name '*.ts' -not -path './node_modules/*' -exec grep -l foo {} + | xargs wc -l",
  "sed -n -e '1,40p' -e '/foo/{s/a/b/g;p}' src/a.ts && awk -F, -v x=1 '{print $1}' src/a.ts",
  "tar --remove-files -cf /dev/null . ; find . -type f -print0 | xargs -0 rm -f ; git push --force-with-lease",
  // Recursive deletes and moves ask whether the folder holds tracked files (git ls-files, cached per index state).
  "rm -rf dist build node_modules coverage && rm -rf src test && mv scripts /tmp/x && find src -delete",
];
for (const [name, list] of [
  ["everyday", everyday],
  ["option-heavy", heavy],
]) {
  // CPU time as well as wall time: on a loaded machine the wall clock counts other processes' turns.
  const cpu = (fn, runs) => {
    for (let i = 0; i < 10; i++) fn();
    const start = process.cpuUsage();
    for (let i = 0; i < runs; i++) fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000 / runs;
  };
  const each = list.map((line) => ({
    judged: time(() => assessCommandLine(line, context), 100),
    judgedCpu: cpu(() => assessCommandLine(line, context), 100),
    parsed: time(() => parser.parse(line).delete(), 100),
  }));
  const mean = each.reduce((a, e) => a + e.judged, 0) / each.length;
  const meanCpu = each.reduce((a, e) => a + e.judgedCpu, 0) / each.length;
  const meanParse = each.reduce((a, e) => a + e.parsed, 0) / each.length;
  const slowest = Math.max(...each.map((e) => e.judged));
  const slowestCpu = Math.max(...each.map((e) => e.judgedCpu));
  console.log(
    `judge ${list.length} ${name} lines: mean ${mean.toFixed(3)} ms per line (CPU ${meanCpu.toFixed(3)} ms), slowest ${slowest.toFixed(3)} ms (CPU ${slowestCpu.toFixed(3)} ms; budget 2 ms); tree-sitter parse alone mean ${meanParse.toFixed(3)} ms; ratio ${(mean / meanParse).toFixed(1)}x`,
  );
}

const pattern = `e${"*a".repeat(20)}*c`;
const longText = `e${"a".repeat(100_000)}c`;
const command = time(() => commandPatternMatches(pattern, longText), 20);
const glob = compileGlob(pattern);
const pathGlob = time(() => glob(longText.slice(0, 20_000)), 5);
const shortText = `e${"a".repeat(28)}`;
const re = picomatch.makeRe(pattern, { dot: true });
t = performance.now();
re.test(shortText);
const backtracking = performance.now() - t;
console.log(
  `rule ${pattern.slice(0, 12)}… (${pattern.length} chars): command matcher on 100,000 chars (a match) ${command.toFixed(3)} ms; path-glob matcher on 20,000 chars ${pathGlob.toFixed(2)} ms; picomatch's regular expression on ${shortText.length} chars ${backtracking.toFixed(1)} ms`,
);
