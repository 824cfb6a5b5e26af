// `npm run pack [-- <folder>]`: packs every workspace package into one folder (default: packed/),
// each built first by its prepack script, and lists the tarballs. Install them together from there:
//   npm install ./packed/attractor-llm-0.1.0.tgz ./packed/attractor-agent-0.1.0.tgz ./packed/attractor-runtime-0.1.0.tgz
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const destination = resolve(process.argv[2] ?? resolve(root, "packed"));
mkdirSync(destination, { recursive: true });
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
// One npm call for all workspaces: a package whose prepack fails stops the run with npm's error.
const output = execFileSync(npm, ["pack", "--workspaces", "--json", "--pack-destination", destination], {
  cwd: root,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
});
// Build output may come first; the JSON is the array that starts a line of its own.
const packed = JSON.parse(output.slice(output.search(/^\[\s*$/m)));
for (const p of packed)
  console.log(`${p.name}@${p.version}: ${relative(process.cwd(), resolve(destination, p.filename))}`);
