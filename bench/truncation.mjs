// truncateToolOutput on a 10 MB single line and on 200k short lines, against a plain string
// slice of the same sizes measured in the same run.
// Run after `npm run build`: node bench/truncation.mjs
import { truncateToolOutput } from "../packages/agent/dist/index.js";

const RUNS = Number(process.env.RUNS ?? 50);
const oneLine = "x".repeat(10_000_000);
const manyLines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${"y".repeat(40)}`).join("\n");

function time(fn) {
  for (let i = 0; i < 3; i++) fn();
  const t = performance.now();
  for (let i = 0; i < RUNS; i++) fn();
  return (performance.now() - t) / RUNS;
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
    sink += (input.slice(0, 15_000) + input.slice(-15_000)).length;
  });
  console.log(
    `${name}: truncateToolOutput(shell) ${ours.toFixed(3)} ms, slice baseline ${base.toFixed(3)} ms, ratio ${(ours / base).toFixed(1)}x`,
  );
}
if (sink === 0) console.log("");
