// Whether a project's `.mcp.json` servers may run. A project file comes with the code, so its
// servers (commands run on this machine, URLs given this user's headers) run only once the user
// has said so: answering the start-up question, `attractor mcp approve`, or the user settings
// `enableAllProjectMcpServers` / `enabledMcpjsonServers` (`disabledMcpjsonServers` refuses).
// An answer holds for the server's configuration as it was approved: a changed entry asks again.
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Settings } from "../config/settings-schema.js";

/** The user's answer for one project server. */
export type ApprovalDecision = "approved" | "denied";

/** How a project server stands. */
export type ApprovalState =
  | { readonly state: "approved"; readonly by: "settings" | "user" }
  | { readonly state: "denied"; readonly by: "settings" | "user" }
  | { readonly state: "pending" };

interface StoredDecision {
  readonly decision: ApprovalDecision;
  /** Hash of the entry as the file wrote it (before variable expansion). */
  readonly config: string;
}

type Store = Record<string, Record<string, StoredDecision>>;

/** Where the answers are kept: one file in attractor's home, by project directory. */
export function approvalsPath(home: string): string {
  return join(home, "mcp-approvals.json");
}

/** A stable hash of a server entry (keys sorted). */
export function entryHash(raw: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash("sha256")
    .update(JSON.stringify(canonical(raw)))
    .digest("hex");
}

async function readStore(home: string): Promise<Store> {
  try {
    const data = JSON.parse(await readFile(approvalsPath(home), "utf8")) as unknown;
    return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Store) : {};
  } catch {
    // Missing or unreadable: nothing approved (fail closed).
    return {};
  }
}

/** Decides for each project server by settings, then by the stored answers. */
export async function projectApprovals(options: {
  readonly home: string;
  readonly projectDir: string;
  readonly userSettings: Settings | undefined;
  readonly entries: Readonly<Record<string, unknown>>;
}): Promise<Map<string, ApprovalState>> {
  const settings = options.userSettings ?? {};
  const stored = (await readStore(options.home))[options.projectDir] ?? {};
  const result = new Map<string, ApprovalState>();
  for (const [name, raw] of Object.entries(options.entries)) {
    if (settings.disabledMcpjsonServers?.includes(name))
      result.set(name, { state: "denied", by: "settings" });
    else if (settings.enableAllProjectMcpServers === true || settings.enabledMcpjsonServers?.includes(name))
      result.set(name, { state: "approved", by: "settings" });
    else {
      const answer = stored[name];
      result.set(
        name,
        answer && answer.config === entryHash(raw)
          ? { state: answer.decision, by: "user" }
          : { state: "pending" },
      );
    }
  }
  return result;
}

async function writeStore(home: string, store: Store): Promise<void> {
  const file = approvalsPath(home);
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Stores the user's answers for project servers (written aside, then renamed into place). */
export async function recordApprovals(
  home: string,
  projectDir: string,
  answers: readonly { readonly name: string; readonly raw: unknown; readonly decision: ApprovalDecision }[],
): Promise<void> {
  if (answers.length === 0) return;
  const store = await readStore(home);
  const project = { ...(store[projectDir] ?? {}) };
  for (const a of answers) project[a.name] = { decision: a.decision, config: entryHash(a.raw) };
  await writeStore(home, { ...store, [projectDir]: project });
}

/** Forgets the stored answers for some of a project's servers. */
export async function forgetApprovals(
  home: string,
  projectDir: string,
  names: readonly string[],
): Promise<void> {
  const store = await readStore(home);
  const project = store[projectDir];
  if (!project || !names.some((n) => n in project)) return;
  const kept = Object.fromEntries(Object.entries(project).filter(([n]) => !names.includes(n)));
  await writeStore(home, { ...store, [projectDir]: kept });
}
