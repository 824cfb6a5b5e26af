// edit_file's matching (applyEdit) on a 10,000-line file, one edit at a time, against a baseline
// measured in the same run: a plain String.indexOf + slice replace of the same text (the least
// any search-and-replace can do). Target: under 20 ms per edit, for an exact match and for the
// normalised layers (the file read and write are not included).
// Run after `npm run build`: node bench/edit.mjs
import { applyEdit, EditError } from "../packages/agent/dist/index.js";

const LINES = Number(process.env.LINES ?? 10_000);
const RUNS = Number(process.env.RUNS ?? 30);

// A tab-indented Go-like file with some non-ASCII text, and the same file as CRLF with a BOM.
const lines = [];
for (let i = 0; i < LINES; i++) {
  const depth = i % 4;
  if (i % 10 === 9) lines.push("");
  else if (depth === 0) lines.push(`func handler${i}(w io.Writer) error { // “step” ${i} — naïve`);
  else lines.push(`${"\t".repeat(depth)}value${i} := compute(${i}, "item ${i}")`);
}
const lf = `${lines.join("\n")}\n`;
const crlf = `\uFEFF${lines.join("\r\n")}\r\n`;
const at = Math.floor(LINES * 0.9) + 1;
const exactOld = [lines[at], lines[at + 1], lines[at + 2]].join("\n");
const exactNew = exactOld.replace("compute(", "computeFast(");

function median(fn) {
  const times = [];
  for (let i = 0; i < 3; i++) fn();
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const plainReplace = (file, oldText, newText) => {
  const i = file.indexOf(oldText);
  return file.slice(0, i) + newText + file.slice(i + oldText.length);
};

// Noisy forms of the same edit, each found by a later layer.
const spaces = (t) => t.replace(/^\t+/gm, (tabs) => "    ".repeat(tabs.length));
const cases = [
  ["exact", lf, exactOld, exactNew],
  ["LF text in a CRLF file with a BOM", crlf, exactOld, exactNew],
  ["trailing whitespace", lf.replace(lines[at + 1], `${lines[at + 1]}   `), exactOld, exactNew],
  ["indentation shifted (one level)", lf, exactOld.replace(/^\t/gm, ""), exactNew.replace(/^\t/gm, "")],
  ["tabs written as spaces", lf, spaces(exactOld), spaces(exactNew)],
  [
    "read_file line numbers",
    lf,
    exactOld
      .split("\n")
      .map((l, j) => `${at + 1 + j} | ${l}`)
      .join("\n"),
    exactNew,
  ],
  ["over-escaped", lf, JSON.stringify(exactOld).slice(1, -1), JSON.stringify(exactNew).slice(1, -1)],
];

const ms = (t) => `${t.toFixed(2)} ms`;
const base = median(() => plainReplace(lf, exactOld, exactNew));
console.log(
  `edit_file matching on a ${LINES}-line file (${(lf.length / 1024).toFixed(0)} KB), median of ${RUNS} runs`,
);
console.log(`  baseline  String.indexOf + slice replace            ${ms(base)}`);
for (const [name, file, oldText, newText] of cases) {
  const r = applyEdit(file, oldText, newText);
  if (!r.content.includes("computeFast(") || r.replacements !== 1) throw new Error(`${name}: wrong result`);
  const t = median(() => applyEdit(file, oldText, newText));
  console.log(
    `  ours      ${`${name} (${r.strategy})`.padEnd(42)} ${ms(t)}  (${(t / base).toFixed(1)}x baseline)`,
  );
}
// A refusal: the closest lines are looked for over the whole file.
const stale = exactOld.replace("compute(", "computeOld(");
const tRefuse = median(() => {
  try {
    applyEdit(lf, stale, exactNew);
  } catch (err) {
    if (!(err instanceof EditError)) throw err;
    return;
  }
  throw new Error("the stale edit was applied");
});
console.log(
  `  ours      ${"a stale line refused (closest lines shown)".padEnd(42)} ${ms(tRefuse)}  (${(tRefuse / base).toFixed(1)}x baseline)`,
);
