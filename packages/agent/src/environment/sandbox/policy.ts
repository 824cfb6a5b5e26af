import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { CODE_RUNNING_FILES } from "../code-running-files.js";

/**
 * How much a sandboxed command may do, named as codex names them: `read-only` (nothing writable
 * but a private /tmp), `workspace-write` (the project directories too), `danger-full-access`
 * (no sandbox at all).
 */
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

/** Every sandbox mode, strictest first. */
export const SANDBOX_MODES: readonly SandboxMode[] = ["read-only", "workspace-write", "danger-full-access"];

/** What a sandboxed command sees of the machine: the policy both the Linux and the macOS sandboxes apply. */
export interface SandboxPolicy {
  readonly mode: SandboxMode;
  /** The project directories (absolute real paths): readable in every mode, writable in workspace-write. */
  readonly projectRoots: readonly string[];
  /** Absolute real paths writable in workspace-write (project directories, their git directories, extras). */
  readonly writableRoots: readonly string[];
  /** Paths inside writable roots that stay read-only: what runs outside the sandbox later (git hooks, git config). */
  readonly readOnlyPaths: readonly string[];
  /** Paths replaced by an empty directory or an empty file: credentials, sockets that act outside. */
  readonly hiddenPaths: readonly string[];
  /**
   * Files that run code later (see CODE_RUNNING_FILES) missing from a writable project directory:
   * an empty read-only folder is mounted in their place so that no command creates one.
   */
  readonly placeholderPaths?: readonly string[];
  /** Whether commands may use the network; without it they only have their own loopback. */
  readonly network: boolean;
}

/** What a sandbox policy is built from. */
export interface SandboxPolicyOptions {
  /** workspace-write by default. */
  readonly mode?: SandboxMode;
  /** The project directories: writable in workspace-write. */
  readonly projectDirs: readonly string[];
  /** More directories writable in workspace-write (a build cache, a second checkout). */
  readonly writableDirs?: readonly string[];
  /** More paths kept read-only inside the writable roots (for example a host's own settings folder). */
  readonly readOnlyPaths?: readonly string[];
  /** More paths hidden, beside the credential paths under the home directory. */
  readonly hiddenPaths?: readonly string[];
  /** Network access; off by default. */
  readonly network?: boolean;
  /** The user's home directory, whose credential folders are hidden; os.homedir() by default. */
  readonly home?: string;
  /** Variables that name sockets to hide (SSH_AUTH_SOCK, XDG_RUNTIME_DIR); process.env by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether commands run as root, who can read what the system keeps from other users
   * (/etc/shadow, host keys): those files are then hidden. The process's own user by default.
   */
  readonly asRoot?: boolean;
}

/** Credential files and folders under the home directory that no sandboxed command may read. */
export const HIDDEN_HOME_PATHS: readonly string[] = [
  ".ssh",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".gnupg",
  ".netrc",
  ".git-credentials",
  ".docker/config.json",
  ".kube",
  ".npmrc",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".attractor",
];

/**
 * Sockets that let a process act outside any sandbox (a container daemon runs what it is asked as
 * root; an agent signs with the user's keys). Unix sockets stay reachable without network and
 * on read-only mounts, so they are hidden.
 */
const HIDDEN_SOCKETS: readonly string[] = ["/var/run/docker.sock", "/run/docker.sock", "/run/podman"];

/** Files and folders of a git directory whose contents run or configure what runs outside the sandbox. */
const GIT_PROTECTED = ["hooks", "config", "config.worktree"];

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The real path when it exists, else the path as given (absolute). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The path and, when a symlink leads elsewhere, where it leads: both must be covered. */
function withTarget(path: string): string[] {
  const abs = resolve(path);
  const target = real(abs);
  return target === abs ? [abs] : [abs, target];
}

/**
 * The git directory and common directory of a checkout, following the `.git` file of a linked
 * worktree only as git writes it: the worktree's git directory names the checkout back in its
 * `gitdir` file and sits in `<common>/worktrees/`. A command could write a `.git` file or a
 * `commondir` pointing anywhere, and the next command's sandbox would make that place writable.
 */
export function gitDirectories(root: string): string[] {
  const dotGit = join(root, ".git");
  try {
    const s = lstatSync(dotGit);
    if (s.isDirectory()) return [real(dotGit)];
    if (!s.isFile()) return [];
    const line = readFileSync(dotGit, "utf8").match(/^gitdir:\s*(.+?)\s*$/m);
    if (!line?.[1]) return [];
    const gitDir = real(resolve(root, line[1]));
    const back = readFileSync(join(gitDir, "gitdir"), "utf8").trim();
    if (real(resolve(gitDir, back)) !== real(dotGit)) return [];
    const common = real(resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim()));
    const parent = dirname(gitDir);
    if (basename(parent) !== "worktrees" || dirname(parent) !== common) return [gitDir];
    return [gitDir, common];
  } catch {
    return [];
  }
}

/**
 * The git directories of submodules under `<gitDir>/modules` (names may contain slashes, and
 * submodules nest), whose hooks run as the top repository's do.
 */
function submoduleGitDirs(modules: string, depth = 0): string[] {
  if (depth > 16) return [];
  let entries: string[];
  try {
    entries = readdirSync(modules);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const dir = join(modules, name);
    return existsSync(join(dir, "HEAD"))
      ? [dir, ...submoduleGitDirs(join(dir, "modules"), depth + 1)]
      : submoduleGitDirs(dir, depth + 1);
  });
}

/**
 * What the system keeps from other users under /etc (two levels down): entries not readable by
 * others, such as /etc/shadow, /etc/gshadow, sudoers, ssh host keys, /etc/ssl/private. Root reads
 * them anyway, so they are hidden when commands run as root. Read once: /etc rarely changes.
 */
let rootOnlyCache: readonly string[] | undefined;
function rootOnlyPaths(): readonly string[] {
  rootOnlyCache ??= scanRootOnly("/etc", 2);
  return rootOnlyCache;
}

function scanRootOnly(dir: string, depth: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(path);
    } catch {
      continue;
    }
    if (info.isSymbolicLink()) continue;
    if ((info.mode & 0o004) === 0) out.push(path);
    else if (info.isDirectory() && depth > 1) out.push(...scanRootOnly(path, depth - 1));
  }
  return out;
}

/**
 * The code-running files of one writable project directory: those present (kept read-only, with
 * where a symlink among them leads) and those missing (given a placeholder). Git's own files are
 * left to the git-directory handling, which follows a linked worktree's `.git` file.
 */
function codeRunningPaths(root: string): { present: string[]; missing: string[] } {
  const present: string[] = [];
  const missing: string[] = [];
  for (const entry of CODE_RUNNING_FILES) {
    if (entry.path.startsWith(".git/")) continue;
    const path = join(root, entry.path);
    let link: string | undefined;
    try {
      link = lstatSync(path).isSymbolicLink() ? readlinkSync(path) : "";
    } catch {
      missing.push(path);
      continue;
    }
    // An empty folder where a file belongs is a placeholder left behind (a run that was killed):
    // it is held again, and removed after the command like a new one.
    if (entry.kind === "file" && !link && isEmptyDirectory(path)) {
      missing.push(path);
      continue;
    }
    const existing = withTarget(path).filter((p) => existsSync(p));
    present.push(...existing);
    // A dangling symlink: writing it creates its target, which then holds the place instead.
    if (existing.length === 0 && link) missing.push(resolve(dirname(path), link));
  }
  // VS Code workspace files carry tasks too; a missing one has no fixed name to hold a place for.
  try {
    for (const name of readdirSync(root))
      if (/\.code-workspace$/i.test(name))
        present.push(...withTarget(join(root, name)).filter((p) => existsSync(p)));
  } catch {
    // An unreadable project directory has nothing to protect that commands could write either.
  }
  return { present, missing };
}

function isEmptyDirectory(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

function uniqueSorted(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort();
}

/**
 * Builds the policy for a set of project directories: writable roots (with their git directories,
 * whose hooks and config stay read-only), hidden credential paths and sockets, and the network
 * choice. A git directory without a hooks folder gets an empty one, so that it can be kept
 * read-only (a hook created inside the sandbox would run outside it on the next commit).
 */
export function createSandboxPolicy(options: SandboxPolicyOptions): SandboxPolicy {
  const mode = options.mode ?? "workspace-write";
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const projects = options.projectDirs.map(real);
  const writable = new Set<string>();
  const readOnly = new Set<string>();
  const placeholders = new Set<string>();
  for (const root of [...projects, ...(options.writableDirs ?? []).map(real)]) {
    writable.add(root);
    // The project folders only: what runs later runs from a project, not from a build cache.
    if (mode === "workspace-write" && projects.includes(root)) {
      const code = codeRunningPaths(root);
      for (const p of code.present) readOnly.add(p);
      for (const p of code.missing) placeholders.add(p);
    }
    for (const gitDir of gitDirectories(root)) {
      if (!writable.has(gitDir) && ![...writable].some((w) => inside(w, gitDir))) writable.add(gitDir);
      const hooks = join(gitDir, "hooks");
      if (mode === "workspace-write" && !existsSync(hooks)) {
        try {
          mkdirSync(hooks);
        } catch {
          // A git directory we cannot write to is read-only to the sandbox as well.
        }
      }
      for (const dir of [gitDir, ...submoduleGitDirs(join(gitDir, "modules"))]) {
        for (const name of GIT_PROTECTED) {
          const p = join(dir, name);
          if (existsSync(p)) readOnly.add(p);
        }
      }
    }
  }
  for (const p of options.readOnlyPaths ?? [])
    for (const q of withTarget(p)) if (existsSync(q)) readOnly.add(q);
  const hidden = new Set<string>();
  const candidates = [
    ...HIDDEN_HOME_PATHS.map((p) => join(home, p)),
    ...HIDDEN_SOCKETS,
    ...(options.hiddenPaths ?? []),
  ];
  const agentSocket = env.SSH_AUTH_SOCK;
  if (agentSocket && isAbsolute(agentSocket)) candidates.push(agentSocket);
  if (env.XDG_RUNTIME_DIR && isAbsolute(env.XDG_RUNTIME_DIR)) candidates.push(env.XDG_RUNTIME_DIR);
  if (options.asRoot ?? process.getuid?.() === 0) candidates.push(...rootOnlyPaths());
  for (const p of candidates) {
    for (const q of withTarget(p)) {
      // Hiding a folder that holds the project would hide the project itself.
      if (existsSync(q) && !projects.some((root) => inside(q, root))) hidden.add(q);
    }
  }
  return {
    mode,
    projectRoots: uniqueSorted(projects),
    writableRoots: mode === "workspace-write" ? uniqueSorted(writable) : [],
    readOnlyPaths: mode === "workspace-write" ? uniqueSorted(readOnly) : [],
    hiddenPaths: uniqueSorted(hidden),
    placeholderPaths: mode === "workspace-write" ? uniqueSorted(placeholders) : [],
    network: options.network ?? false,
  };
}

/** Whether a path is a directory (hidden by an empty directory) rather than a file (hidden by an empty file). */
export function isDirectoryPath(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
