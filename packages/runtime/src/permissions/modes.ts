/**
 * Permission modes, most cautious first: plan (read-only tools only), normal (reads allowed,
 * edits and shell ask), auto-edit (edits inside the project allowed), yolo (everything but
 * critical commands and denied calls allowed).
 */
export const PERMISSION_MODES = ["plan", "normal", "auto-edit", "yolo"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** True when `value` names a permission mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODES as readonly string[]).includes(value);
}

/**
 * Other agents' names for the modes, accepted wherever a mode is given (flags and settings):
 * Claude Code's (`default`, `acceptEdits`, `plan`, `bypassPermissions`) and gemini-cli's
 * (`auto_edit`, `yolo`).
 */
export const PERMISSION_MODE_ALIASES = {
  default: "normal",
  acceptEdits: "auto-edit",
  bypassPermissions: "yolo",
  auto_edit: "auto-edit",
} as const satisfies Readonly<Record<string, PermissionMode>>;

/** Every name a mode may be given by: ours and the aliases. */
export const PERMISSION_MODE_NAMES = [
  ...PERMISSION_MODES,
  ...(Object.keys(PERMISSION_MODE_ALIASES) as (keyof typeof PERMISSION_MODE_ALIASES)[]),
] as const;
export type PermissionModeName = (typeof PERMISSION_MODE_NAMES)[number];

/** Our mode for a mode name or alias; undefined for anything else. */
export function toPermissionMode(name: string | undefined): PermissionMode | undefined {
  if (name === undefined) return undefined;
  if (isPermissionMode(name)) return name;
  return Object.hasOwn(PERMISSION_MODE_ALIASES, name)
    ? PERMISSION_MODE_ALIASES[name as keyof typeof PERMISSION_MODE_ALIASES]
    : undefined;
}
