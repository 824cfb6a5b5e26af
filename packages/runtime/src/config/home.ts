import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The directory holding settings, sessions and checkpoints: $ATTRACTOR_HOME, else ~/.attractor. */
export function attractorHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.ATTRACTOR_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), ".attractor");
}

/** The user settings file inside an attractor home. */
export function userSettingsPath(home: string): string {
  return join(home, "settings.json");
}

/** Claude Code's project settings file, whose hooks attractor runs too. */
export function claudeSettingsPath(projectDir: string): string {
  return join(projectDir, ".claude", "settings.json");
}

/** Claude Code's personal project settings file (not committed), whose hooks attractor runs too. */
export function claudeLocalSettingsPath(projectDir: string): string {
  return join(projectDir, ".claude", "settings.local.json");
}

/** The project settings file of a project directory. */
export function projectSettingsPath(projectDir: string): string {
  return join(projectDir, ".attractor", "settings.json");
}
