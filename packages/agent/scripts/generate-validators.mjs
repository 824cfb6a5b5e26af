// Writes src/tools/builtin-validators.generated.ts: every built-in tool's argument validator,
// compiled ahead of time by ajv's standalone code generator, so a run validates tool calls without
// compiling schemas (nor ajv's meta-schema) first. Run after `npm run build` whenever a built-in
// tool's parameters change; a test fails while the file is out of date, and until then the changed
// schema is simply compiled at run time.
//   node packages/agent/scripts/generate-validators.mjs [--check]
import { readFile, writeFile } from "node:fs/promises";
import { generateValidatorModule } from "../dist/codegen/validator-codegen.js";

const target = new URL("../src/tools/builtin-validators.generated.ts", import.meta.url);
const code = await generateValidatorModule();
if (process.argv.includes("--check")) {
  const current = await readFile(target, "utf8").catch(() => "");
  if (current !== code) {
    console.error(
      "src/tools/builtin-validators.generated.ts is out of date: run this script without --check",
    );
    process.exit(1);
  }
} else {
  await writeFile(target, code);
}
