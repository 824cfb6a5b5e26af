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
