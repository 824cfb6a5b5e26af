import type { Turn } from "@attractor/agent";
import { typedText } from "@attractor/runtime";
import { type SessionSummary, turnsOf } from "@attractor/runtime/store";
import type { SlashCommand } from "../types.js";

/** /resume [id]: picks a stored session of this project (or takes an id or its prefix) and resumes it. */
export const resumeCommand: SlashCommand = {
  name: "resume",
  args: "[session id]",
  summary: "Resume a stored conversation of this project",
  idleOnly: true,
  async run({ runtime, host }, args) {
    const sessions = (await runtime.listSessions()).filter((s) => s.sessionId !== runtime.session.id);
    if (sessions.length === 0) {
      host.show({ kind: "text", tone: "info", text: "No other stored conversation for this project." });
      return;
    }
    let chosen: SessionSummary | undefined;
    if (args !== "") {
      const matches = sessions.filter((s) => s.sessionId === args || s.sessionId.startsWith(args));
      if (matches.length !== 1) {
        host.show({
          kind: "text",
          tone: "error",
          text:
            matches.length === 0
              ? `No stored conversation "${args}". /resume without an id lists them.`
              : `"${args}" matches ${matches.length} conversations; type more of the id.`,
        });
        return;
      }
      chosen = matches[0];
    } else {
      chosen = await host.choose(
        "Resume which conversation?",
        sessions.map((s) => ({
          label: oneLine(s.firstUserMessage ?? "(no message yet)"),
          detail: `${ago(s.updatedAt)} · ${s.sessionId}`,
          value: s,
          preview: async () =>
            sessionPreview(turnsOf<Turn>(await runtime.store.load(s.sessionId, runtime.projectDir))),
        })),
      );
    }
    if (!chosen) return;
    await runtime.resume(chosen.sessionId);
    host.resetScreen(true);
    host.show({ kind: "text", tone: "success", text: `Resumed conversation ${chosen.sessionId}.` });
  },
};

/** User messages listed in a preview before the rest are counted. */
const PREVIEW_MESSAGES = 6;

/**
 * What the picker shows of a stored conversation when it is expanded: its size, the user's
 * messages (a line each) and the start of the last answer.
 */
export function sessionPreview(turns: readonly Turn[]): string[] {
  const asked = turns.flatMap((t) => (t.kind === "user" ? [oneLine(typedText(t.content))] : []));
  const calls = turns.reduce((n, t) => n + (t.kind === "assistant" ? t.toolCalls.length : 0), 0);
  const answer = turns.findLast((t) => t.kind === "assistant" && t.content.trim() !== "");
  const lines = [
    `${asked.length} message${asked.length === 1 ? "" : "s"} from you · ${calls} tool call${calls === 1 ? "" : "s"}`,
    ...asked.slice(0, PREVIEW_MESSAGES).map((m) => `› ${m}`),
  ];
  if (asked.length > PREVIEW_MESSAGES) lines.push(`  … ${asked.length - PREVIEW_MESSAGES} more`);
  if (answer?.kind === "assistant") {
    const start = answer.content
      .trim()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .slice(0, 2);
    lines.push(...start.map((l, i) => `${i === 0 ? "●" : " "} ${oneLine(l)}`));
  }
  return lines;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 70 ? `${line.slice(0, 69)}…` : line;
}

/** "5 min ago", "3 h ago", "2 d ago". */
export function ago(iso: string, now = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  if (!Number.isFinite(ms)) return iso;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}
