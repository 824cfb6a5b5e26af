import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encodeProjectDir, type SessionStore } from "../store/index.js";

/**
 * Copies a stored session of the project into the store under `toHome` with a new id (a fork:
 * the same history, a transcript of its own) and returns the new id. The copy is written whole
 * before it takes its name, so a failure leaves no half-written transcript.
 */
export async function copyStoredSession(
  from: SessionStore,
  toHome: string,
  projectDir: string,
  sessionId: string,
): Promise<string> {
  const found = (await from.list(projectDir)).find((s) => s.sessionId === sessionId);
  if (!found) throw new Error(`no stored session ${JSON.stringify(sessionId)} for ${projectDir}`);
  const text = await readFile(found.path, "utf8");
  const newline = text.indexOf("\n");
  const header = JSON.parse(newline < 0 ? text : text.slice(0, newline)) as Record<string, unknown>;
  if (header.type !== "session") throw new Error(`the stored session ${sessionId} has no header`);
  // The store's own form of a session id: a timestamp and a random part.
  const id = `${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "")}-${randomUUID().slice(0, 8)}`;
  const body = newline < 0 ? "" : text.slice(newline + 1);
  const folder = join(toHome, "sessions", encodeProjectDir(projectDir));
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${id}.jsonl`);
  await writeFile(
    `${path}.tmp`,
    `${JSON.stringify({ ...header, sessionId: id, forkedFrom: sessionId })}\n${body}`,
    {
      flag: "wx",
    },
  );
  await rename(`${path}.tmp`, path);
  return id;
}
