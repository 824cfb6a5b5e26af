import { SANDBOX_MODES, type SandboxSettings } from "./settings-schema.js";

/**
 * The sandbox settings of the user's file narrowed by the project's: a cloned repository can make
 * the sandbox stricter (a stricter mode, the network off) but can neither loosen it nor add
 * writable directories, whatever else the user trusts it with.
 */
export function tightenSandbox(
  user: SandboxSettings | undefined,
  project: SandboxSettings | undefined,
): SandboxSettings | undefined {
  if (project === undefined) return user;
  const mode =
    user?.mode === undefined
      ? project.mode === "danger-full-access"
        ? undefined
        : project.mode
      : project.mode === undefined
        ? user.mode
        : SANDBOX_MODES[Math.min(SANDBOX_MODES.indexOf(user.mode), SANDBOX_MODES.indexOf(project.mode))];
  const network = project.network === false ? false : user?.network;
  const merged: SandboxSettings = {
    ...(mode !== undefined && { mode }),
    ...(network !== undefined && { network }),
    ...(user?.writableDirs !== undefined && { writableDirs: user.writableDirs }),
  };
  return Object.keys(merged).length === 0 ? undefined : merged;
}
