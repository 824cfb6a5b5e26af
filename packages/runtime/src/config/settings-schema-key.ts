import { createHash } from "node:crypto";
import { SETTINGS_SCHEMA } from "./settings-schema.js";

/** The options the settings schema is compiled with, ahead of time or at run time alike. */
export const SETTINGS_AJV_OPTIONS = { allErrors: true, strict: true } as const;

/** A short hash of the settings schema: the precompiled validator is used only while it matches. */
export function settingsSchemaKey(): string {
  return createHash("sha256").update(JSON.stringify(SETTINGS_SCHEMA)).digest("hex").slice(0, 16);
}
