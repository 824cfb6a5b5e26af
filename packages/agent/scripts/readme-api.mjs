// Rewrites the "Public API" list of each package README from what its entries export, grouped by
// the folder that defines each name. Run after changing an entry's exports (then `npm run build`
// is not needed: it reads the sources); packages/agent/test/readme-examples.test.ts fails while
// a list and its entry differ.
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const ENTRIES = {
  llm: [".", "./testing"],
  agent: [".", "./testing"],
  runtime: [".", "./names"],
  fleet: ["."],
  cli: ["./runtime", "./headless", "./tui", "./config", "./testing"],
};

const sourceOf = (pkgDir, entry) => {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  return join(pkgDir, manifest.exports[entry].types.replace("./dist/", "src/").replace(/\.d\.ts$/, ".ts"));
};

const sources = Object.entries(ENTRIES).flatMap(([pkg, entries]) =>
  entries.map((entry) => sourceOf(join(repo, "packages", pkg), entry)),
);
const program = ts.createProgram(sources, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
  jsx: ts.JsxEmit.ReactJSX,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();

/** The markdown list of one entry: `- folder: \`name\`, …` lines. */
function listFor(pkgDir, entry) {
  const file = program.getSourceFile(sourceOf(pkgDir, entry));
  const module = file && checker.getSymbolAtLocation(file);
  if (!module) throw new Error(`no module for ${pkgDir} ${entry}`);
  const groups = new Map();
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declared = target.declarations?.[0]?.getSourceFile().fileName;
    const path = declared ? relative(join(pkgDir, "src"), declared) : "";
    const parts = path.split("/");
    const group = path.startsWith("..")
      ? "re-exported"
      : parts.length > 1
        ? (parts[0] ?? "")
        : path.replace(/\.tsx?$/, "");
    groups.set(group, [...(groups.get(group) ?? []), symbol.name]);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([group, names]) =>
        `- ${group}: ${names
          .sort((a, b) => a.localeCompare(b))
          .map((n) => `\`${n}\``)
          .join(", ")}`,
    )
    .join("\n");
}

for (const [pkg, entries] of Object.entries(ENTRIES)) {
  const pkgDir = join(repo, "packages", pkg);
  const readmePath = join(pkgDir, "README.md");
  const name = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).name;
  const text = readFileSync(readmePath, "utf8");
  const [before, section] = text.split(/^## Public API\s*$/m);
  if (section === undefined) throw new Error(`${relative(repo, readmePath)} has no "## Public API" section`);
  const next = section.search(/^## /m);
  const body = next < 0 ? section : section.slice(0, next);
  const after = next < 0 ? "" : section.slice(next);
  const intro = body.split(/^### /m)[0]?.trim() ?? "";
  const lists = entries
    .map(
      (entry) => `### \`${entry === "." ? name : `${name}${entry.slice(1)}`}\`\n\n${listFor(pkgDir, entry)}`,
    )
    .join("\n\n");
  writeFileSync(readmePath, `${before}## Public API\n\n${intro}\n\n${lists}\n${after ? `\n${after}` : ""}`);
  console.log(`${relative(repo, readmePath)}: ${entries.length} entries`);
}
