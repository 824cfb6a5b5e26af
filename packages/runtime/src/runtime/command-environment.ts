import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  type SandboxEscapeAnswer,
  type SandboxEscapeRequest,
  SandboxedExecutionEnvironment,
  type SandboxMode,
} from "@attractor/agent";
import type { ResolvedSettings } from "../config/index.js";
import { KEY_VARIABLES } from "./provider-choice.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The API keys attractor itself reads: never passed to commands, whatever env.allow says. */
export const OWN_KEY_VARIABLES: readonly string[] = [
  ...Object.values(KEY_VARIABLES).flat(),
  "OPENAI_COMPATIBLE_API_KEY",
];

/** What the command environment is made from. */
export interface CommandEnvironmentOptions {
  readonly projectDir: string;
  /** More project directories (--add-dir): writable to commands like the project. */
  readonly projectDirs?: readonly string[];
  readonly env: Env;
  readonly settings: ResolvedSettings;
  /** attractor's home (sessions, settings): hidden from commands. */
  readonly home: string;
  /** The --sandbox flag, when given; it wins over the settings. */
  readonly sandbox?: SandboxMode;
  readonly headless: boolean;
  /** Says something to the user once (the sandbox cannot run here). */
  readonly warn: (message: string) => void;
  /**
   * Commands judged read-only (no checkpoint is taken before them): they run with the project
   * read-only too, so a misjudged one cannot change what /undo could not restore.
   */
  readonly readOnlyFor?: (command: string) => boolean | Promise<boolean>;
  /** Asks the user whether to re-run a command the sandbox blocked outside it; absent when headless. */
  readonly askEscape?: (request: SandboxEscapeRequest) => Promise<SandboxEscapeAnswer>;
}

const HEADLESS_HINT =
  'Nobody can approve that in this non-interactive run: report what was blocked. The user can allow it by running attractor with --sandbox danger-full-access, by setting "sandbox": {"network": true} or {"writableDirs": [...]} in ~/.attractor/settings.json, or interactively, where a blocked command can be re-run outside the sandbox.';
const INTERACTIVE_HINT =
  "The user declined to run it outside the sandbox; they can also start attractor with --sandbox danger-full-access or allow the network with the sandbox.network setting.";

/**
 * The environment the agent's tools use: the local one with shell commands in the OS sandbox.
 * workspace-write wherever bubblewrap can run; an explicit --sandbox or settings mode is required
 * (commands are refused where it cannot run), the default falls back to no sandbox with one
 * warning. The project's `.attractor` folder and `.mcp.json` stay read-only to commands (what
 * they hold runs outside the sandbox later); attractor's home is hidden.
 */
export function createCommandEnvironment(options: CommandEnvironmentOptions): {
  readonly environment: SandboxedExecutionEnvironment;
  /** Whether the sandbox was chosen explicitly, so commands are refused where it cannot run. */
  readonly required: boolean;
} {
  const { env, settings } = options;
  const explicit = options.sandbox ?? settings.sandbox?.mode;
  const mode = explicit ?? "workspace-write";
  const userHome = env.HOME?.trim() ? resolve(env.HOME) : homedir();
  const required = explicit !== undefined && explicit !== "danger-full-access";
  const environment = new SandboxedExecutionEnvironment({
    workingDirectory: options.projectDir,
    envPolicy: { allowSecrets: allowedSecrets(settings.env.allow, env) },
    baseEnv: env,
    sandbox: {
      mode,
      ...(options.projectDirs !== undefined && { projectDirs: options.projectDirs }),
      network: settings.sandbox?.network ?? false,
      ...(settings.sandbox?.writableDirs !== undefined && {
        writableDirs: settings.sandbox.writableDirs.map((d) => resolve(userHome, d)),
      }),
      home: userHome,
      hiddenPaths: [options.home],
      readOnlyPaths: [join(options.projectDir, ".attractor"), join(options.projectDir, ".mcp.json")],
      required,
      // The macOS profile is experimental: used only when the user asked for a sandbox.
      experimentalSeatbelt: required,
      ...(env.PATH !== undefined && { searchPath: env.PATH }),
      onUnavailable: (reason) =>
        options.warn(
          `The sandbox cannot run here (${reason}): shell commands run without it, guarded by the permission rules alone. Install bubblewrap (apt install bubblewrap) to sandbox them.`,
        ),
      ...(options.askEscape !== undefined && { onBlocked: options.askEscape }),
      ...(options.readOnlyFor !== undefined && { readOnlyFor: options.readOnlyFor }),
      blockedHint: options.headless || options.askEscape === undefined ? HEADLESS_HINT : INTERACTIVE_HINT,
    },
  });
  return { environment, required };
}

/** The warning to show at start-up when the sandbox chosen cannot run, or undefined. */
export async function sandboxStartupNotice(
  environment: SandboxedExecutionEnvironment,
  required: boolean,
): Promise<string | undefined> {
  const status = await environment.availability();
  if (status.active || environment.mode === "danger-full-access") return undefined;
  return required
    ? `The sandbox (${environment.mode}) cannot run here: ${status.reason}. Shell commands will be refused; start with --sandbox danger-full-access to run them without a sandbox.`
    : `The sandbox cannot run here (${status.reason}): shell commands run without it, guarded by the permission rules alone. Install bubblewrap (apt install bubblewrap) to sandbox them.`;
}

/** Names from settings' env.allow with `*` wildcards expanded, minus attractor's own API keys. */
export function allowedSecrets(patterns: readonly string[], env: Env): string[] {
  const names = new Set<string>();
  for (const pattern of patterns) {
    if (!pattern.includes("*")) {
      names.add(pattern);
      continue;
    }
    const re = new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`, "i");
    for (const name of Object.keys(env)) if (re.test(name)) names.add(name);
  }
  const own = new Set(OWN_KEY_VARIABLES);
  return [...names].filter((name) => !own.has(name.toUpperCase()));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
