import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from "@attractor/runtime/permissions";
import type { SlashCommand } from "../types.js";

/** Names users know from other agents, mapped to ours. */
const ALIASES: Readonly<Record<string, PermissionMode>> = {
  default: "normal",
  "accept-edits": "auto-edit",
  acceptedits: "auto-edit",
  "auto-accept": "auto-edit",
  bypass: "yolo",
  "read-only": "plan",
};

const DESCRIPTIONS: Readonly<Record<PermissionMode, string>> = {
  plan: "read-only tools only; the model plans",
  normal: "reads run, edits and commands ask",
  "auto-edit": "edits inside the project run, commands ask",
  yolo: "everything runs except critical commands",
};

/**
 * The mode after `mode` in Shift+Tab order: normal → auto-edit → plan → normal. Yolo is left out
 * of the cycle so a key press too many never turns approvals off; from yolo the cycle goes back
 * to normal.
 */
export function nextMode(mode: PermissionMode): PermissionMode {
  const order: readonly PermissionMode[] = ["normal", "auto-edit", "plan"];
  const at = order.indexOf(mode);
  return at < 0 ? "normal" : (order[(at + 1) % order.length] as PermissionMode);
}

/** /mode [m]: shows or sets the permission mode. */
export const modeCommand: SlashCommand = {
  name: "mode",
  args: "[mode]",
  summary: "Show or set the permission mode: plan, normal, auto-edit, yolo",
  async run({ runtime, host }, args) {
    if (args === "") {
      host.show({
        kind: "list",
        title: `Mode: ${runtime.mode}`,
        rows: PERMISSION_MODES.map((m) => ({
          label: m === runtime.mode ? `${m} ✓` : m,
          detail: DESCRIPTIONS[m],
        })),
      });
      return;
    }
    const wanted = args.toLowerCase();
    const mode = isPermissionMode(wanted) ? wanted : ALIASES[wanted];
    if (!mode) {
      host.show({
        kind: "text",
        tone: "error",
        text: `Unknown mode "${args}". Modes: ${PERMISSION_MODES.join(", ")}.`,
      });
      return;
    }
    runtime.setMode(mode);
    host.show({ kind: "text", tone: "success", text: `Mode: ${mode} (${DESCRIPTIONS[mode]})` });
  },
};
