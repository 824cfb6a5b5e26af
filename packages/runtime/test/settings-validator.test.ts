// Settings files are validated at start-up by a validator generated ahead of time from the
// settings schema; it must be current and judge exactly as the schema compiled at run time does.
import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { SETTINGS_SCHEMA } from "../src/config/index.js";
import { SETTINGS_AJV_OPTIONS } from "../src/config/settings-schema-key.js";
import { validate as precompiled } from "../src/config/settings-validator.generated.js";
import { generateSettingsValidatorModule } from "../src/config/settings-validator-codegen.js";

describe("the precompiled settings validator", () => {
  it("is generated from the current settings schema", async () => {
    const generated = await readFile(
      new URL("../src/config/settings-validator.generated.ts", import.meta.url),
      "utf8",
    );
    expect(
      generated,
      "run: npm run build && node packages/runtime/scripts/generate-settings-validator.mjs",
    ).toBe(generateSettingsValidatorModule());
  });

  it("accepts and rejects what the schema compiled at run time does, with the same errors", () => {
    const compiled = new Ajv(SETTINGS_AJV_OPTIONS).compile(SETTINGS_SCHEMA);
    const samples: unknown[] = [
      {},
      { model: "claude-sonnet-4-5", permissions: { allow: ["Read"], deny: [] } },
      { model: "" },
      { baseUrl: "ftp://x" },
      { mode: "nonsense", unknownKey: 1 },
      { permissions: { allow: "Read" } },
      { lsp: { enabled: "yes" } },
    ];
    for (const sample of samples) {
      const a = precompiled(structuredClone(sample));
      const errorsA = precompiled.errors;
      const b = compiled(structuredClone(sample));
      expect(a, JSON.stringify(sample)).toBe(b);
      expect(errorsA ?? null, JSON.stringify(sample)).toEqual(compiled.errors ?? null);
    }
  });
});
