// truncateToolOutput on a 10 MB single line and on 10 MB in 200k short lines, against a naive
// truncation measured in the same run: split into lines first, keep head and tail lines, then cut
// characters (the order the spec forbids, and the work it avoids).
// Run after `npm run build`: node bench/truncation.mjs   (RUNS=…)
import { truncateToolOutput } from "../packages/agent/dist/index.js";

const RUNS = Number(process.env.RUNS ?? 20);
const oneLine = "x".repeat(10_000_000);
const manyLines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${"y".repeat(40)}`).join("\n");

function time(fn) {
  for (let i = 0; i < 3; i++) fn();
  const t = performance.now();
  for (let i = 0; i < RUNS; i++) fn();
  return (performance.now() - t) / RUNS;
}

function naive(input) {
  const lines = input.split("\n");
  const kept = lines.length > 256 ? [...lines.slice(0, 128), "[...]", ...lines.slice(-128)] : lines;
  const joined = kept.join("\n");
  return joined.length > 30_000 ? `${joined.slice(0, 15_000)}[...]${joined.slice(-15_000)}` : joined;
}

let sink = 0;
for (const [name, input] of [
  ["10 MB single line", oneLine],
  [`${(manyLines.length / 1e6).toFixed(1)} MB in 200k lines`, manyLines],
]) {
  const ours = time(() => {
    sink += truncateToolOutput(input, "shell").length;
  });
  const base = time(() => {
    sink += naive(input).length;
  });
  console.log(
    `${name}: truncateToolOutput(shell) ${ours.toFixed(3)} ms, naive lines-first ${base.toFixed(3)} ms, ratio ${(ours / base).toFixed(3)}x`,
  );
}
if (sink === 0) console.log("");
