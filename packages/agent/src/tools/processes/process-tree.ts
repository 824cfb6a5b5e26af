import { readdirSync, readFileSync } from "node:fs";

/** Parent pid of a process from /proc/<pid>/stat (after the command name, which may hold spaces). */
function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

/**
 * Every process below `root` (children, their children…) as /proc shows them now; empty where
 * there is no /proc. A program run under a pseudo-terminal is in a session of its own, out of
 * the starter's process group, so stopping the group alone would miss it.
 */
export function descendants(root: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const pid of entries) {
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(pid));
    children.set(parent, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of children.get(next) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Sends a signal to each pid, ignoring those already gone. */
export function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}
