import { parseCommandLine, type SimpleCommand } from "./command-parser.js";

/** How much harm a command can do: critical always asks, even in yolo mode. */
export type SafetyTier = "none" | "medium" | "high" | "critical";

const TIER_ORDER: readonly SafetyTier[] = ["none", "medium", "high", "critical"];

/** The stricter of two tiers. */
export function maxTier(a: SafetyTier, b: SafetyTier): SafetyTier {
  return TIER_ORDER.indexOf(a) >= TIER_ORDER.indexOf(b) ? a : b;
}

/** The verdict on one simple command. */
export interface CommandAssessment {
  readonly command: SimpleCommand;
  readonly tier: SafetyTier;
  /** Why the tier was chosen, for prompts and deny messages. */
  readonly reason: string;
  /** Only inspects: changes no file, starts no network transfer, runs no user code. */
  readonly readOnly: boolean;
  /** On the built-in deny list: never runs, whatever the mode or rules. */
  readonly blocked: boolean;
}

/** The verdict on a whole command line: its strictest part decides. */
export interface LineAssessment {
  readonly tier: SafetyTier;
  readonly reason: string;
  readonly readOnly: boolean;
  readonly blocked: boolean;
  readonly commands: readonly CommandAssessment[];
}

const FORK_BOMB = /:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&/;
const DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper\/|dm-|md|loop)/;
const SYSTEM_DIRS =
  /^\/(bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library)\/?\*?$/;
const DOWNLOADERS = new Set(["curl", "wget", "fetch"]);
const INTERPRETERS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "python",
  "python3",
  "perl",
  "ruby",
  "node",
]);

/** Classifies a command line into a safety tier, looking at every sub-command. */
export function assessCommandLine(line: string): LineAssessment {
  const commands = parseCommandLine(line).map((command) => assessCommand(command));
  const assessments: CommandAssessment[] = [...commands];
  if (FORK_BOMB.test(line)) {
    const bomb = commands[0]?.command ?? emptyCommand(line);
    assessments.push({
      command: bomb,
      tier: "critical",
      reason: "fork bomb",
      readOnly: false,
      blocked: true,
    });
  }
  assessments.push(...assessPipelines(commands.map((c) => c.command)));
  let tier: SafetyTier = "none";
  let reason = assessments[0]?.reason ?? "empty command";
  for (const a of assessments) {
    if (TIER_ORDER.indexOf(a.tier) > TIER_ORDER.indexOf(tier)) {
      tier = a.tier;
      reason = a.reason;
    }
  }
  return {
    tier,
    reason: assessments.length === 0 ? "empty command" : reason,
    readOnly: assessments.length > 0 && assessments.every((a) => a.readOnly),
    blocked: assessments.some((a) => a.blocked),
    commands: assessments,
  };
}

function emptyCommand(text: string): SimpleCommand {
  return { argv: [], wrappers: [], assignments: [], redirects: [], pipeline: 0, position: 0, depth: 0, text };
}

/** `curl … | sh`: a download piped into an interpreter runs unseen code. */
function assessPipelines(commands: readonly SimpleCommand[]): CommandAssessment[] {
  const out: CommandAssessment[] = [];
  const byPipeline = new Map<number, SimpleCommand[]>();
  for (const c of commands) byPipeline.set(c.pipeline, [...(byPipeline.get(c.pipeline) ?? []), c]);
  for (const members of byPipeline.values()) {
    const download = members.find((c) => DOWNLOADERS.has(c.argv[0] ?? ""));
    if (!download) continue;
    const runner = members.find(
      (c) =>
        c.position > download.position &&
        INTERPRETERS.has(c.argv[0] ?? "") &&
        !c.argv.slice(1).some(isScriptFileArg),
    );
    if (runner) {
      out.push({
        command: runner,
        tier: "critical",
        reason: `downloaded script piped into ${runner.argv[0]}`,
        readOnly: false,
        blocked: false,
      });
    }
  }
  return out;
}

function isScriptFileArg(arg: string): boolean {
  return !arg.startsWith("-");
}

/** Short flags of an argv (`-rf` → r, f) plus long flags, for option tests. */
function flags(argv: readonly string[]): { short: Set<string>; long: Set<string>; operands: string[] } {
  const short = new Set<string>();
  const long = new Set<string>();
  const operands: string[] = [];
  let ended = false;
  for (const arg of argv.slice(1)) {
    if (ended || !arg.startsWith("-") || arg === "-") operands.push(arg);
    else if (arg === "--") ended = true;
    else if (arg.startsWith("--")) long.add(arg.split("=")[0] as string);
    else for (const ch of arg.slice(1)) short.add(ch);
  }
  return { short, long, operands };
}

function verdict(
  command: SimpleCommand,
  tier: SafetyTier,
  reason: string,
  readOnly = false,
  blocked = false,
): CommandAssessment {
  return { command, tier, reason, readOnly, blocked };
}

/** Programs that only inspect, when given no option that writes or runs something. */
const READ_ONLY_PROGRAMS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "echo",
  "printf",
  "pwd",
  "which",
  "whoami",
  "date",
  "true",
  "false",
  "rg",
  "grep",
  "egrep",
  "fgrep",
  "tree",
  "file",
  "stat",
  "du",
  "df",
  "printenv",
  "sort",
  "uniq",
  "cut",
  "tr",
  "diff",
  "cmp",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "less",
  "more",
  "nl",
  "column",
  "jq",
  "uname",
  "hostname",
  "id",
  "type",
  "test",
  "[",
  "seq",
  "yes",
  "sha256sum",
  "md5sum",
  "shasum",
  "cd",
  "sleep",
  "comm",
  "paste",
  "fold",
  "rev",
  "od",
  "hexdump",
  "xxd",
  "strings",
  "tac",
]);

const READ_ONLY_GIT = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "rev-parse",
  "ls-files",
  "ls-tree",
  "cat-file",
  "describe",
  "shortlog",
  "grep",
  "reflog",
  "whatchanged",
  "merge-base",
  "rev-list",
  "name-rev",
  "count-objects",
]);

const TEST_RUNNERS = new Set([
  "vitest",
  "jest",
  "pytest",
  "mocha",
  "tsc",
  "eslint",
  "biome",
  "prettier",
  "ruff",
  "mypy",
]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
const NETWORK = new Set([
  "curl",
  "wget",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ftp",
  "socat",
]);
const SYSTEM_POWER = new Set(["shutdown", "reboot", "halt", "poweroff"]);

/** Assesses one simple command. */
export function assessCommand(command: SimpleCommand): CommandAssessment {
  const base = assessProgram(command);
  const elevated = command.wrappers.some((w) => w === "sudo" || w === "doas");
  let result =
    elevated && base.tier !== "critical"
      ? {
          ...base,
          tier: maxTier(base.tier, "high"),
          reason: `runs as root (sudo): ${base.reason}`,
          readOnly: false,
        }
      : base;
  for (const redirect of command.redirects) {
    if (!redirect.op.includes(">")) continue;
    if (DEVICE.test(redirect.target))
      return verdict(command, "critical", `writes directly to the device ${redirect.target}`, false, true);
    if (redirect.op !== ">&" && redirect.target !== "/dev/null" && !/^&?\d+$/.test(redirect.target)) {
      result = {
        ...result,
        readOnly: false,
        tier: maxTier(result.tier, "medium"),
        reason: result.tier === "none" ? `writes to ${redirect.target}` : result.reason,
      };
    }
  }
  return result;
}

function assessProgram(command: SimpleCommand): CommandAssessment {
  const argv = command.argv;
  const program = argv[0] ?? "";
  const { short, long, operands } = flags(argv);
  const v = (tier: SafetyTier, reason: string, readOnly = false, blocked = false) =>
    verdict(command, tier, reason, readOnly, blocked);
  if (program === "") return v("none", "no command", true);

  if (program === "rm") {
    const recursive = short.has("r") || short.has("R") || long.has("--recursive");
    const dangerousTarget = operands.find(
      (o) =>
        o === "/" ||
        o === "/*" ||
        o === "~" ||
        o === "~/" ||
        o === "~/*" ||
        o === "$HOME" ||
        o === "$HOME/" ||
        o === "*" ||
        o === "." ||
        o === ".." ||
        o === "./*" ||
        SYSTEM_DIRS.test(o),
    );
    if (recursive && dangerousTarget !== undefined) {
      return v(
        "critical",
        `recursive delete of ${dangerousTarget}`,
        false,
        dangerousTarget === "/" || dangerousTarget === "/*",
      );
    }
    if (recursive) return v("high", "recursive delete");
    return v("medium", "deletes files");
  }
  if (
    /^mkfs(\.|$)/.test(program) ||
    program === "mke2fs" ||
    program === "wipefs" ||
    program === "fdisk" ||
    program === "parted"
  ) {
    return v("critical", "formats or partitions a disk", false, program.startsWith("mkfs"));
  }
  if (program === "dd") {
    const of = argv.find((a) => a.startsWith("of="))?.slice(3);
    if (of && DEVICE.test(of)) return v("critical", `dd onto the device ${of}`, false, true);
    return v("high", "raw copy with dd");
  }
  if (program === "chmod" || program === "chown" || program === "chgrp") {
    const recursive = short.has("R") || long.has("--recursive");
    const rootTarget = operands.find((o) => o === "/" || o === "/*" || o === "~" || SYSTEM_DIRS.test(o));
    if (recursive && rootTarget)
      return v(
        "critical",
        `recursive ${program} of ${rootTarget}`,
        false,
        rootTarget === "/" && operands.includes("777"),
      );
    if (program === "chmod" && operands.includes("/") && operands.includes("777"))
      return v("critical", "chmod 777 /", false, true);
    if (recursive || operands.some((o) => /^0?777$/.test(o) || o === "a+rwx"))
      return v("high", `${recursive ? "recursive " : ""}${program}`);
    return v("medium", `changes file ${program === "chmod" ? "modes" : "owners"}`);
  }
  if (SYSTEM_POWER.has(program) || (program === "init" && /^[06]$/.test(operands[0] ?? "")))
    return v("critical", "shuts down or reboots the machine");
  if (program === "systemctl" && /^(poweroff|reboot|halt|kexec)$/.test(operands[0] ?? ""))
    return v("critical", "shuts down or reboots the machine");
  if (program === "kill" || program === "pkill" || program === "killall") {
    if (program === "kill" && operands.includes("-1")) return v("critical", "kills every process");
    return v("high", "kills processes");
  }
  if (program === "sudo" || program === "su" || program === "doas") return v("high", "runs as another user");
  if (program === "git") return assessGit(command);
  if (PACKAGE_MANAGERS.has(program)) return assessPackageManager(command);
  if (program === "npx" || program === "pnpx" || program === "bunx") {
    const tool = operands.find((o) => !o.startsWith("-")) ?? "";
    if (TEST_RUNNERS.has(tool)) return v("none", `runs ${tool}`);
    return v("medium", `runs a package binary (${tool || "npx"})`);
  }
  if (TEST_RUNNERS.has(program)) return v("none", `runs ${program}`);
  if (
    [
      "pip",
      "pip3",
      "gem",
      "apt",
      "apt-get",
      "brew",
      "dnf",
      "yum",
      "pacman",
      "apk",
      "cargo",
      "go",
      "poetry",
      "uv",
    ].includes(program)
  ) {
    const sub = operands[0] ?? "";
    if (["publish", "push", "upload"].includes(sub))
      return v("high", `publishes a package (${program} ${sub})`);
    if (["test", "check", "build", "vet", "fmt", "list", "show", "search", "version", "env"].includes(sub))
      return v("none", `${program} ${sub}`);
    return v("medium", `${program} ${sub}`.trim());
  }
  if (program === "twine" && operands[0] === "upload") return v("high", "publishes a package (twine upload)");
  if (program === "docker" || program === "podman" || program === "kubectl") {
    const sub = operands[0] ?? "";
    if (["ps", "images", "logs", "inspect", "version", "get", "describe"].includes(sub))
      return v("none", `${program} ${sub}`);
    if (["rm", "rmi", "prune", "push", "delete", "system", "volume"].includes(sub))
      return v("high", `${program} ${sub}`);
    return v("medium", `${program} ${sub}`.trim());
  }
  if (program === "terraform" && ["destroy", "apply"].includes(operands[0] ?? ""))
    return v("high", `terraform ${operands[0]}`);
  if (program === "shred" || program === "truncate") return v("high", `${program} destroys file contents`);
  if (NETWORK.has(program)) return v("medium", `network access (${program})`);
  if (program === "find") {
    if (
      argv.some((a) =>
        ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"].includes(a),
      )
    ) {
      return v(
        argv.includes("-delete") ? "high" : "medium",
        argv.includes("-delete") ? "find -delete removes files" : "find runs commands",
      );
    }
    return v("none", "find", true);
  }
  if (program === "sed" && (short.has("i") || [...long].some((l) => l.startsWith("--in-place"))))
    return v("medium", "edits files in place (sed -i)");
  if (program === "sort" && (short.has("o") || long.has("--output")))
    return v("medium", "writes a file (sort -o)");
  if (
    program === "tee" ||
    program === "touch" ||
    program === "mkdir" ||
    program === "cp" ||
    program === "mv" ||
    program === "ln" ||
    program === "install" ||
    program === "rmdir" ||
    program === "unzip" ||
    program === "tar"
  ) {
    return v("medium", `changes files (${program})`);
  }
  if (program === "env" || program === "printenv" || program === "set" || program === "export") {
    return v("none", program, program !== "export");
  }
  if (READ_ONLY_PROGRAMS.has(program)) return v("none", program, true);
  if (program === "make" && ["test", "check", "lint"].includes(operands[0] ?? ""))
    return v("none", `make ${operands[0]}`);
  return v("medium", `runs ${program}`);
}

function assessGit(command: SimpleCommand): CommandAssessment {
  const argv = command.argv;
  // Skip global options (`git -C dir`, `git -c k=v`, `--no-pager`).
  let i = 1;
  while (i < argv.length && (argv[i] as string).startsWith("-")) {
    i += ["-C", "-c", "--git-dir", "--work-tree", "--namespace"].includes(argv[i] as string) ? 2 : 1;
  }
  const sub = argv[i] ?? "";
  const rest = argv.slice(i + 1);
  const { short, long, operands } = flags(["git", ...rest]);
  const v = (tier: SafetyTier, reason: string, readOnly = false) =>
    verdict(command, tier, reason, readOnly, false);
  const force = short.has("f") || long.has("--force");
  switch (sub) {
    case "reset":
      return long.has("--hard") || long.has("--merge") || long.has("--keep")
        ? v("high", "git reset --hard discards changes")
        : v("medium", "git reset");
    case "clean":
      return force || short.has("x") || short.has("d")
        ? v("high", "git clean deletes untracked files")
        : v("medium", "git clean");
    case "push":
      if (
        force ||
        long.has("--force-with-lease") ||
        long.has("--mirror") ||
        long.has("--delete") ||
        short.has("d") ||
        operands.some((o) => o.startsWith("+") || o.startsWith(":"))
      ) {
        return v("high", "git push rewrites or deletes remote history");
      }
      return v("medium", "git push");
    case "checkout":
    case "restore":
      if (
        force ||
        operands.includes(".") ||
        rest.includes("--") ||
        long.has("--worktree") ||
        short.has("W") ||
        sub === "restore"
      ) {
        return v("high", `git ${sub} discards working-tree changes`);
      }
      return v("medium", `git ${sub}`);
    case "branch":
      if (
        short.has("D") ||
        (short.has("d") && force) ||
        long.has("--delete") ||
        short.has("d") ||
        short.has("m") ||
        short.has("M")
      ) {
        return v(short.has("D") || force ? "high" : "medium", "git branch deletes or renames a branch");
      }
      return v("none", "git branch", operands.length === 0);
    case "stash":
      return ["drop", "clear"].includes(operands[0] ?? "")
        ? v("high", `git stash ${operands[0]} loses stashed work`)
        : operands[0] === "list" || operands[0] === "show"
          ? v("none", "git stash list", true)
          : v("medium", "git stash");
    case "filter-branch":
    case "filter-repo":
      return v("high", "rewrites history");
    case "reflog":
      return operands[0] === "expire" || operands[0] === "delete"
        ? v("high", "expires the reflog")
        : v("none", "git reflog", true);
    case "gc":
    case "prune":
      return v("high", `git ${sub} can drop unreachable commits`);
    case "rebase":
    case "commit":
    case "merge":
    case "pull":
    case "fetch":
    case "tag":
    case "cherry-pick":
    case "revert":
    case "am":
    case "apply":
    case "switch":
    case "add":
    case "rm":
    case "mv":
    case "init":
    case "clone":
    case "submodule":
      return v("medium", `git ${sub}`);
    case "remote":
    case "config":
      return operands.length <= (sub === "remote" ? 0 : 1) ||
        rest.includes("-v") ||
        rest.includes("--get") ||
        rest.includes("--list") ||
        short.has("l")
        ? v("none", `git ${sub}`, true)
        : v("medium", `git ${sub}`);
    default:
      return READ_ONLY_GIT.has(sub)
        ? v("none", `git ${sub}`, true)
        : v("medium", `git ${sub || "command"}`.trim());
  }
}

function assessPackageManager(command: SimpleCommand): CommandAssessment {
  const program = command.argv[0] as string;
  const { operands } = flags(command.argv);
  const sub = operands[0] ?? "";
  const v = (tier: SafetyTier, reason: string, readOnly = false) =>
    verdict(command, tier, reason, readOnly, false);
  if (["publish", "unpublish", "deprecate", "dist-tag", "owner"].includes(sub))
    return v("high", `${program} ${sub} changes a published package`);
  if (
    sub === "test" ||
    sub === "t" ||
    (sub === "run" && /^(test|lint|typecheck|check|build)(:|$)/.test(operands[1] ?? ""))
  ) {
    return v("none", `${program} ${operands.slice(0, sub === "run" ? 2 : 1).join(" ")}`);
  }
  if (
    [
      "ls",
      "list",
      "view",
      "info",
      "outdated",
      "why",
      "explain",
      "audit",
      "--version",
      "-v",
      "version",
    ].includes(sub) &&
    operands.length <= 2
  ) {
    return v("none", `${program} ${sub}`, sub !== "audit" && sub !== "version");
  }
  return v("medium", `${program} ${sub}`.trim());
}
