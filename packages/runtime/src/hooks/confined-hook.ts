import { probeBubblewrap } from "@attractor/agent";

/** How to start a hook command confined: the program and its arguments, the command last. */
export type ConfinedLauncher = (command: string) => {
  readonly file: string;
  readonly args: readonly string[];
};

/**
 * Where an untrusted project's blocking hooks may run. Their only effect is to block a call, but
 * the command is still someone else's: it runs under bubblewrap with the whole file system
 * read-only, the user's home (and attractor's) hidden behind empty directories with the project
 * mounted back read-only, no network, its own PID/IPC/user namespaces and no capabilities, and an
 * environment of PATH, LANG, HOME and the project variables only. Resolves undefined where
 * bubblewrap cannot run (not Linux, not installed, no user namespaces): the caller then fails
 * closed and asks about the call rather than skipping the hook.
 */
export async function confinedLauncher(options: {
  readonly projectDir: string;
  /** Directories the hook must not read: the user's home, attractor's home. */
  readonly hidden: readonly string[];
  readonly path: string | undefined;
}): Promise<ConfinedLauncher | undefined> {
  if (process.platform !== "linux") return undefined;
  const status = await probeBubblewrap(options.path).catch(() => undefined);
  if (!status?.available) return undefined;
  const hide = options.hidden.flatMap((dir) => ["--tmpfs", dir]);
  const base = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    ...hide,
    "--ro-bind",
    options.projectDir,
    options.projectDir,
    "--unshare-user",
    ...(status.disableUserns ? ["--disable-userns"] : []),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--unshare-net",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--chdir",
    options.projectDir,
  ];
  return (command) => ({ file: status.path, args: [...base, "--", "/bin/sh", "-c", command] });
}

/** The environment a confined hook gets: nothing secret, whatever the session's holds. */
export function confinedEnv(
  env: Readonly<Record<string, string | undefined>>,
  projectDir: string,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ["PATH", "LANG", "LC_ALL", "TERM", "HOME"]) {
    const value = env[name];
    if (value !== undefined) kept[name] = value;
  }
  return { ...kept, CLAUDE_PROJECT_DIR: projectDir, ATTRACTOR_PROJECT_DIR: projectDir };
}
