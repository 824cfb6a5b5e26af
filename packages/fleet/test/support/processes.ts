// Finds live processes by a string in their command line (/proc), to tell whether an agent is
// still running after its task was cancelled or its worker died.
import { readdirSync, readFileSync } from "node:fs";

/** Pids of live processes whose command line contains `marker` (zombies excluded). */
export function agentProcesses(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, "utf8"))?.[1];
      if (cmdline.includes(marker) && state !== "Z") out.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}
