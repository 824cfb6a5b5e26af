import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { programOnPath } from "../program-on-path.js";

/** The first child of a process, from /proc; undefined until it has one. */
function firstChild(pid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
    const child = Number(children[0]);
    return Number.isInteger(child) && child > 0 ? child : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One network namespace, with only loopback in it, that every sandboxed command of an environment
 * joins: a server a command starts in the background is reachable from the later commands over
 * 127.0.0.1, and nothing reaches the outside network. A bubblewrap process that sleeps holds the
 * namespace (and the user namespace that owns it); commands enter both with nsenter(1) before
 * their own bubblewrap sandbox, which then does not unshare the network. Where that cannot be
 * set up (no nsenter, no /proc), `enter` resolves to undefined and each command keeps a network
 * namespace of its own, as before.
 */
export class SharedNetworkNamespace {
  private holder: ChildProcess | undefined;
  private ready: Promise<{ readonly nsenter: string; readonly target: number } | undefined> | undefined;

  constructor(private readonly searchPath: () => string) {}

  /**
   * The command-line prefix that runs a program inside the shared namespace, starting its holder
   * on first use; undefined when a shared namespace cannot be had here.
   */
  async enter(bwrapPath: string): Promise<string[] | undefined> {
    this.ready ??= this.start(bwrapPath);
    const ns = await this.ready;
    if (ns === undefined) return undefined;
    // The holder may have died (killed from outside): the next command gets a fresh namespace.
    if (this.holder?.exitCode !== null || this.holder?.signalCode !== null) {
      this.ready = undefined;
      return this.enter(bwrapPath);
    }
    return [ns.nsenter, `--target=${ns.target}`, "--user", "--net", "--preserve-credentials", "--"];
  }

  /** Stops the holder; the namespace goes with the last process in it. */
  close(): void {
    this.holder?.kill("SIGKILL");
    this.holder = undefined;
    this.ready = undefined;
  }

  private async start(bwrapPath: string): Promise<{ nsenter: string; target: number } | undefined> {
    // Absolute PATH folders only: a relative entry would follow the working folder's own nsenter.
    const nsenter = programOnPath("nsenter", this.searchPath());
    if (!isAbsolute(nsenter)) return undefined;
    const holder = spawn(
      bwrapPath,
      [
        "--unshare-user",
        "--unshare-net",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--",
        "sleep",
        "infinity",
      ],
      { stdio: "ignore" },
    );
    holder.on("error", () => {});
    holder.unref();
    this.holder = holder;
    const pid = holder.pid;
    if (pid === undefined) return undefined;
    // bubblewrap stays in the old namespaces; the program it starts is in the new ones.
    for (let waited = 0; waited < 2_000; waited += 10) {
      if (holder.exitCode !== null) return undefined;
      const target = firstChild(pid);
      if (target !== undefined) {
        // Entering can still be refused (a kernel or policy that forbids joining the user
        // namespace): tried once, so commands fall back to their own namespaces rather than fail.
        const probe = spawnSync(
          nsenter,
          [`--target=${target}`, "--user", "--net", "--preserve-credentials", "--", "true"],
          {
            stdio: "ignore",
            timeout: 5_000,
          },
        );
        if (probe.status === 0) return { nsenter, target };
        holder.kill("SIGKILL");
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    holder.kill("SIGKILL");
    return undefined;
  }
}
