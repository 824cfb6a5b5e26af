// Stdio servers are children of this process. The SDK ends them on close(); this registry also
// ends those still running when the process exits without closing its managers (an uncaught
// error, process.exit), so no server outlives the agent.

const live = new Set<number>();
let hooked = false;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

/** Remembers a server's process id until it is forgotten. */
export function trackChild(pid: number): void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once("exit", killAll);
  }
}

/** The process has ended or been closed. */
export function forgetChild(pid: number): void {
  live.delete(pid);
}
