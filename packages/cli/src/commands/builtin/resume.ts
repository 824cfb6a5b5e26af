import type { SessionSummary } from "@attractor/runtime/store";
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
        })),
      );
    }
    if (!chosen) return;
    await runtime.resume(chosen.sessionId);
    host.resetScreen(true);
    host.show({ kind: "text", tone: "success", text: `Resumed conversation ${chosen.sessionId}.` });
  },
};

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
