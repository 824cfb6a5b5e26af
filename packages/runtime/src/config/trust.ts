import { createHash, randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

/**
 * Project files whose contents can make attractor act for the user (send keys to a server, run
 * commands, widen permissions). Trusting a project trusts these files as they are now; a change
 * to any of them — including one appearing — withdraws the trust until the user confirms again.
 * A feature that loads more behaviour from a project adds its file here.
 */
// `.mcp.json` is not among them: its servers have an approval of their own, per server and
// pinned to each entry's content (see the mcp folder).
export const PROJECT_TRUST_FILES: readonly string[] = [
  ".attractor/settings.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
];

/** The trust files loadSettings reads itself (and asks about only when they want something). */
export const PROJECT_SETTINGS_FILES: readonly string[] = PROJECT_TRUST_FILES.slice(0, 3);

/** What the user decided for a project, for the project files exactly as they were then. */
export type TrustDecision = "trusted" | "declined";

/** A project's standing, as `readProjectTrust` finds it. */
export type ProjectTrust =
  /** None of PROJECT_TRUST_FILES exists: the project brings no configuration of its own. */
  | { readonly kind: "no-project-config"; readonly fingerprint: string }
  /** The user trusted the files as they are now. */
  | { readonly kind: "trusted"; readonly fingerprint: string }
  /** The user declined the files as they are now: do not ask again until they change. */
  | { readonly kind: "declined"; readonly fingerprint: string }
  /** Never decided, or the files changed since the decision. */
  | { readonly kind: "unknown"; readonly fingerprint: string; readonly changed: boolean };

interface TrustRecord {
  readonly fingerprint: string;
  readonly decision: TrustDecision;
  readonly decidedAt: string;
}

interface TrustStore {
  readonly version: 1;
  readonly projects: Readonly<Record<string, TrustRecord>>;
}

/** The file under attractor's home where trust decisions are remembered. */
export function trustStorePath(home: string): string {
  return join(home, "trusted-projects.json");
}

/** The key a project is remembered by: its real path, so a symlinked checkout is the same project. */
function projectKey(projectDir: string): string {
  const absolute = resolve(projectDir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/**
 * A hash of the project's PROJECT_TRUST_FILES (contents, and which ones are absent); undefined
 * when none exists.
 */
export async function projectFingerprint(projectDir: string): Promise<string | undefined> {
  const hash = createHash("sha256");
  let any = false;
  for (const file of PROJECT_TRUST_FILES) {
    const content = await readFile(join(projectDir, file)).catch(() => undefined);
    hash.update(`${file}\0`);
    if (content === undefined) hash.update("absent\0");
    else {
      any = true;
      hash.update(`${content.length}\0`).update(content).update("\0");
    }
  }
  return any ? hash.digest("hex") : undefined;
}

async function readStore(home: string): Promise<TrustStore> {
  try {
    const data = JSON.parse(await readFile(trustStorePath(home), "utf8")) as Partial<TrustStore>;
    if (data && data.version === 1 && data.projects && typeof data.projects === "object")
      return { version: 1, projects: data.projects };
  } catch {
    // Missing or unreadable: nothing is trusted, which is the safe reading.
  }
  return { version: 1, projects: {} };
}

/** Where the project stands: no configuration, trusted, declined, or not decided for its current files. */
export async function readProjectTrust(options: {
  readonly home: string;
  readonly projectDir: string;
}): Promise<ProjectTrust> {
  const fingerprint = await projectFingerprint(options.projectDir);
  if (fingerprint === undefined) return { kind: "no-project-config", fingerprint: "" };
  const record = (await readStore(options.home)).projects[projectKey(options.projectDir)];
  if (record?.fingerprint === fingerprint) return { kind: record.decision, fingerprint };
  return { kind: "unknown", fingerprint, changed: record !== undefined };
}

/**
 * Remembers the user's decision for the project's files as they are now (written atomically).
 * `fingerprint` pins the decision to the files the user was shown; it defaults to the current ones.
 */
export async function recordProjectTrust(options: {
  readonly home: string;
  readonly projectDir: string;
  readonly decision: TrustDecision;
  readonly fingerprint?: string;
}): Promise<void> {
  const fingerprint = options.fingerprint ?? (await projectFingerprint(options.projectDir));
  if (fingerprint === undefined) return;
  const store = await readStore(options.home);
  const next: TrustStore = {
    version: 1,
    projects: {
      ...store.projects,
      [projectKey(options.projectDir)]: {
        fingerprint,
        decision: options.decision,
        decidedAt: new Date().toISOString(),
      },
    },
  };
  await mkdir(options.home, { recursive: true });
  const file = trustStorePath(options.home);
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * True when the project's security-sensitive configuration may take effect: the user trusted
 * its current files, or `override` (the `--trust-project` flag) says so for this run. False for a
 * project that has no configuration of its own: there is nothing to load from it.
 * This is the one check every loader of project-provided behaviour (settings, MCP servers,
 * hooks) calls before using it.
 */
export async function isProjectTrusted(options: {
  readonly home: string;
  readonly projectDir: string;
  readonly override?: boolean;
}): Promise<boolean> {
  if (options.override === true) return true;
  return (await readProjectTrust(options)).kind === "trusted";
}
