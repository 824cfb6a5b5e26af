import { createInterface } from "node:readline/promises";
import type { SessionSummary } from "@attractor/runtime/store";

const SHOWN = 20;

/** One line per session: number, id, last update, first message. */
export function formatSessionList(sessions: readonly SessionSummary[], limit = SHOWN): string {
  return sessions
    .slice(0, limit)
    .map((s, i) => {
      const when = s.updatedAt.replace("T", " ").slice(0, 16);
      const first = (s.firstUserMessage ?? "(no message)").replace(/\s+/g, " ");
      return `${String(i + 1).padStart(3)}. ${s.sessionId}  ${when}  ${first.length > 60 ? `${first.slice(0, 59)}…` : first}`;
    })
    .join("\n");
}

/**
 * Lists the sessions and asks which one to resume on the terminal; resolves with its id, or
 * undefined when the user cancels (empty answer).
 */
export async function pickSession(
  sessions: readonly SessionSummary[],
  io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream },
): Promise<string | undefined> {
  const shown = Math.min(sessions.length, SHOWN);
  io.output.write(`Sessions of this directory, newest first:\n${formatSessionList(sessions)}\n`);
  const rl = createInterface({ input: io.input, output: io.output });
  try {
    for (;;) {
      const answer = (await rl.question(`Resume which one? [1-${shown}, Enter to cancel] `)).trim();
      if (answer === "") return undefined;
      const n = Number(answer);
      if (Number.isInteger(n) && n >= 1 && n <= shown) return sessions[n - 1]?.sessionId;
      const byId = sessions.find((s) => s.sessionId === answer);
      if (byId) return byId.sessionId;
      io.output.write(`"${answer}" is not a number from 1 to ${shown} nor a listed id.\n`);
    }
  } finally {
    rl.close();
  }
}
