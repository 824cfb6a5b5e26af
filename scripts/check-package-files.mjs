// Run by each package's prepack after its build: fails (exit 1, naming the files) when a file the
// package.json points at (main, types, bin, every exports target), or one named after the folder,
// is missing, so `npm pack` never makes a package without its build. Usage, from a package folder:
//   node ../../scripts/check-package-files.mjs [. [more files the package needs]]
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** Every relative file path a package.json names for consumers: main, types, bin and exports targets. */
export function declaredFiles(manifest) {
  const files = new Set();
  const add = (target) => {
    if (typeof target === "string") {
      if (target.startsWith("./") || !target.startsWith(".")) files.add(target.replace(/^\.\//, ""));
    } else if (target && typeof target === "object") for (const value of Object.values(target)) add(value);
  };
  add(manifest.main);
  add(manifest.types);
  add(typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin ?? {}));
  add(manifest.exports);
  return [...files].filter((f) => !f.includes("*")).sort();
}

/** The declared files (and the extra ones given) missing from a package folder. */
export function missingFiles(packageDir, extra = []) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  return [...declaredFiles(manifest), ...extra].filter((file) => !existsSync(join(packageDir, file)));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const dir = resolve(process.argv[2] ?? ".");
  const missing = missingFiles(dir, process.argv.slice(3));
  if (missing.length > 0) {
    const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name;
    console.error(`${name}: the build did not produce ${missing.join(", ")}; not packing it without them`);
    process.exit(1);
  }
}
