import type { BackgroundProcessInfo } from "@attractor/agent";
import type { SlashCommand } from "../types.js";

function state(info: BackgroundProcessInfo): string {
  if (info.running) return `running (pid ${info.pid ?? "?"})`;
  return info.exitCode !== null ? `exited ${info.exitCode}` : `killed by ${info.signal ?? "a signal"}`;
}

/** /jobs: the session's background commands and their state; `/jobs stop <id>` stops one. */
export const jobsCommand: SlashCommand = {
  name: "jobs",
  args: "[stop <id>]",
  summary: "List the commands running in the background, or stop one",
  async run({ runtime, host }, args) {
    const processes = runtime.session.processes;
    const words = args
      .trim()
      .split(/\s+/)
      .filter((w) => w !== "");
    if (words[0] === "stop" && words.length === 2) {
      try {
        const info = await processes.stop(words[1] as string);
        host.show({ kind: "text", tone: "success", text: `Stopped ${info.id} (${info.command}).` });
      } catch (err) {
        host.show({ kind: "text", tone: "error", text: (err as Error).message });
      }
      return;
    }
    if (words.length > 0) {
      host.show({ kind: "text", tone: "error", text: "Usage: /jobs, or /jobs stop <id>." });
      return;
    }
    const list = processes.list();
    if (list.length === 0) {
      host.show({
        kind: "text",
        tone: "info",
        text: "No command was started in the background in this session.",
      });
      return;
    }
    host.show({
      kind: "list",
      title: `${processes.runningCount()} running of ${list.length} started in the background`,
      rows: list.map((p) => ({ label: p.id, detail: `${state(p)} · ${p.command}` })),
    });
  },
};
