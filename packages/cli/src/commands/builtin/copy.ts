import { join } from "node:path";
import type { Turn } from "@attractor/agent";
import { attractorHome } from "@attractor/runtime/config";
import { copyWithProgram, osc52, saveCopy } from "../../terminal/clipboard.js";
import type { SlashCommand } from "../types.js";

/** The text of the model's last answer in `history`, or undefined before the first one. */
export function lastAnswer(history: readonly Turn[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i];
    if (turn?.kind === "assistant" && turn.content.trim() !== "") return turn.content.trim();
  }
  return undefined;
}

/**
 * /copy: the last answer goes to the clipboard three ways, since none works everywhere: OSC 52 to
 * the terminal (works over SSH), a clipboard program of the desktop, and a file whose path is shown.
 */
export const copyCommand: SlashCommand = {
  name: "copy",
  summary: "Copy the last answer to the clipboard",
  async run({ runtime, host }) {
    const text = lastAnswer(runtime.session.history);
    if (text === undefined) {
      host.show({ kind: "text", tone: "warning", text: "There is no answer to copy yet." });
      return;
    }
    const ways: string[] = [];
    if (host.writeToTerminal) {
      host.writeToTerminal(osc52(text));
      ways.push("the terminal's clipboard (OSC 52)");
    }
    const program = await copyWithProgram(text);
    if (program) ways.push(program);
    const file = join(attractorHome(), "last-answer.md");
    let saved = true;
    try {
      await saveCopy(file, text);
    } catch {
      saved = false;
    }
    const lines = text.split("\n").length;
    const what = `the last answer (${lines} line${lines === 1 ? "" : "s"})`;
    host.show({
      kind: "text",
      tone: ways.length > 0 || saved ? "success" : "error",
      text: [
        ways.length > 0 ? `Copied ${what} to ${ways.join(" and ")}.` : `No clipboard reached for ${what}.`,
        saved ? `Also saved to ${file}` : `Could not save it to ${file}.`,
      ].join(" "),
    });
  },
};
