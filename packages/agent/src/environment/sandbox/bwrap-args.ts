import { isDirectoryPath, type SandboxPolicy } from "./policy.js";

/** What the bwrap command line needs beside the policy. */
export interface BwrapLayout {
  /** The directory the command starts in. */
  readonly cwd: string;
  /** A host directory private to this environment, mounted as /tmp. */
  readonly tmpDir: string;
  /** Whether this bwrap knows --disable-userns (0.8 and later). */
  readonly disableUserns: boolean;
  /** Host paths under /tmp a program needs to read (bound read-only over the private /tmp). */
  readonly programPaths?: readonly string[];
}

/**
 * The namespace and privilege options every sandboxed command gets. --cap-drop ALL matters when
 * the agent runs as root: bwrap then keeps every capability by default, and a command could
 * unmount what hides a credential folder or remount / read-write.
 */
export function bwrapIsolationArgs(network: boolean, disableUserns: boolean): string[] {
  return [
    "--unshare-user",
    ...(disableUserns ? ["--disable-userns"] : []),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--cap-drop",
    "ALL",
  ];
}

/**
 * The bwrap arguments (up to, not including, `--` and the command) that apply a policy: the root
 * read-only, fresh /dev and /proc (the PID namespace's own, so no other process's environment
 * or memory is reachable), the private /tmp, then the writable roots, then what stays read-only
 * inside them and the placeholders of missing code-running files, then the hidden paths: later
 * mounts cover earlier ones.
 */
export function bwrapArguments(policy: SandboxPolicy, layout: BwrapLayout): string[] {
  const args = [
    ...bwrapIsolationArgs(policy.network, layout.disableUserns),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    layout.tmpDir,
    "/tmp",
  ];
  for (const path of layout.programPaths ?? []) args.push("--ro-bind", path, path);
  if (policy.mode === "workspace-write") {
    for (const root of policy.writableRoots) args.push("--bind", root, root);
    for (const path of policy.readOnlyPaths) args.push("--ro-bind", path, path);
    // bwrap makes the mount point (an empty folder) on the host; the environment removes it
    // again once no command runs. A folder, not a file: git and npm skip an empty folder named
    // `.gitattributes` or `.npmrc`, where an empty file would show up in `git status` and `git add -A`.
    // A mount point cannot be removed or renamed, so no file takes its place; what a command
    // writes inside the folder stays in the sandbox's memory. Not remounted read-only: that
    // costs about a millisecond per mount, and 0555 already refuses accidental writes.
    for (const path of policy.placeholderPaths ?? []) args.push("--perms", "0555", "--tmpfs", path);
  } else {
    // Bound again so that a project under /tmp stays visible over the private /tmp.
    for (const root of policy.projectRoots) args.push("--ro-bind", root, root);
  }
  for (const path of policy.hiddenPaths) {
    if (isDirectoryPath(path)) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--chdir", layout.cwd);
  return args;
}
