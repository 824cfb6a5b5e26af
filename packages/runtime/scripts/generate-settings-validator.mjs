// Writes src/config/settings-validator.generated.ts: the settings schema's validator compiled
// ahead of time by ajv's standalone code generator, so reading a settings file at start-up does not
// compile the schema (nor load ajv's compiler) first. Run after `npm run build` whenever the
// settings schema changes; a test fails while the file is out of date, and until then the changed
// schema is simply compiled at run time.
//   node packages/runtime/scripts/generate-settings-validator.mjs [--check]
import { readFile, writeFile } from "node:fs/promises";
import { generateSettingsValidatorModule } from "../dist/config/settings-validator-codegen.js";

const target = new URL("../src/config/settings-validator.generated.ts", import.meta.url);
const code = generateSettingsValidatorModule();
if (process.argv.includes("--check")) {
  const current = await readFile(target, "utf8").catch(() => "");
  if (current !== code) {
    console.error(
      "src/config/settings-validator.generated.ts is out of date: run this script without --check",
    );
    process.exit(1);
  }
} else {
  await writeFile(target, code);
}
