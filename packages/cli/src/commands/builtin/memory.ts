import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { SlashCommand } from "../types.js";

/** /memory: lists the instruction files in use and opens the one chosen in $EDITOR. */
export const memoryCommand: SlashCommand = {
  name: "memory",
  summary: "Edit the instruction files (AGENTS.md, CLAUDE.md…) in $EDITOR",
  idleOnly: true,
  async run({ runtime, host }) {
    const files = (await runtime.instructionFiles?.()) ?? [];
    if (files.length === 0) {
      host.show({ kind: "text", tone: "warning", text: "No instruction files are known to this front end." });
      return;
    }
    const file = await host.choose(
      "Instruction files",
      files.map((f, i) => ({ label: f, ...(i === 0 && { detail: "yours, for every project" }), value: f })),
    );
    if (file === undefined) return;
    if (!host.editFile) {
      host.show({ kind: "list", title: "Instruction files", rows: files.map((f) => ({ label: f })) });
      return;
    }
    // The user's file may not exist yet: it is created empty for the editor.
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "", { flag: "a" });
    await host.editFile(file);
    host.show({
      kind: "text",
      tone: "success",
      text: `Saved ${file}; new sessions read it (/clear starts one).`,
    });
  },
};
