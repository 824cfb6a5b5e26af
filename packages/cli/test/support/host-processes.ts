import { execFileSync } from "node:child_process";

/** A process of this machine as ps shows it. */
export interface HostProcess {
  readonly pid: number;
  readonly pgid: number;
  readonly args: string;
}

/** This machine's processes whose command line holds `marker` (the ps itself left out). */
export function processesWith(marker: string): HostProcess[] {
  return execFileSync("ps", ["-eo", "pid=,pgid=,args="], { encoding: "utf8" })
    .split("\n")
    .flatMap((line) => {
      const [, pid, pgid, args = ""] = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line) ?? [];
      if (!args.includes(marker) || args.startsWith("ps ")) return [];
      return [{ pid: Number(pid), pgid: Number(pgid), args }];
    });
}

/** Whether a process exists and has not ended: a zombie has ended, only its exit status waits to be read. */
export function alive(pid: number): boolean {
  try {
    return !/^Z/.test(execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim());
  } catch {
    return false;
  }
}

/** How many processes of a group have not ended. */
export function groupMembers(pgid: number): number {
  return execFileSync("ps", ["-eo", "pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .filter((l) => {
      const [group, stat] = l.trim().split(/\s+/);
      return Number(group) === pgid && !stat?.startsWith("Z");
    }).length;
}

/** The process group this test process runs in. */
export function ownProcessGroup(): number {
  return Number(execFileSync("ps", ["-o", "pgid=", "-p", String(process.pid)], { encoding: "utf8" }).trim());
}
