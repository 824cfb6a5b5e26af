import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import { PERMISSION_MODES, type PermissionMode, toPermissionMode } from "@attractor/runtime/permissions";

const MODES: Readonly<Record<PermissionMode, { readonly name: string; readonly description: string }>> = {
  plan: { name: "Plan", description: "Read-only tools only: the agent explores and plans, changes nothing" },
  normal: { name: "Normal", description: "Reads run; edits and commands ask for permission" },
  "auto-edit": { name: "Auto-edit", description: "Edits inside the project run; commands ask" },
  yolo: { name: "YOLO", description: "Everything runs without asking, except critical commands" },
};

/** The ACP mode id of a permission mode: the mode's own name. */
export function modeId(mode: PermissionMode): string {
  return mode;
}

/**
 * The permission mode an ACP mode id names: ours, or another agent's name for it (`default`,
 * `acceptEdits`, `autoEdit`, `bypassPermissions`…); undefined for anything else.
 */
export function modeFromId(id: string): PermissionMode | undefined {
  if (id === "autoEdit" || id === "accept-edits") return "auto-edit";
  return toPermissionMode(id);
}

/** The session's modes as session/new and session/load answer them. */
export function modeState(current: PermissionMode): SessionModeState {
  const availableModes: SessionMode[] = PERMISSION_MODES.map((mode) => ({
    id: modeId(mode),
    name: MODES[mode].name,
    description: MODES[mode].description,
  }));
  return { currentModeId: modeId(current), availableModes };
}
