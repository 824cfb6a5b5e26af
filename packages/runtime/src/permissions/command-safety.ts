import { homedir } from "node:os";
import { dirname, resolve } from "node:path";
import { BashParserNotLoadedError, bashParserReady, loadBashParser } from "./bash-parser.js";
import {
  parseCommandLine,
  programName,
  type ShellContext,
  type SimpleCommand,
  type Word,
} from "./command-parser.js";
import { gitSubcommandVerdict, packageManagerVerdict } from "./git-and-package-verdicts.js";
import { optionWith, parseOptions } from "./option-parser.js";
import { canonicalPath, isInside } from "./paths.js";
import { programOptions } from "./program-options.js";
import { readOnlyVerdict } from "./read-only-commands.js";
import { findNarrows, narrowPattern, SHELLS } from "./shell-programs.js";
import { maxTier, type SafetyTier, TIER_ORDER } from "./tiers.js";
import { holdsTrackedFiles } from "./tracked-directories.js";

export { maxTier, type SafetyTier } from "./tiers.js";

/** A path a command reads or writes, after static expansion. */
export interface PathUse {
  /** What the line says, expanded as far as possible. */
  readonly text: string;
  /** Canonical absolute path (a glob's fixed leading directories); undefined when dynamic. */
  readonly absolute?: string;
  readonly access: "read" | "write";
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
  /** False when the verdict rests on something that could not be known statically. */
  readonly understood: boolean;
  /** Paths it reads or writes (for read-only commands and redirections). */
  readonly paths: readonly PathUse[];
  /**
   * What makes the command write or run code beyond reading: an option (`git diff --output=F`,
   * `find -delete`) or, for a script or extra operand, the reason. A rule with a wildcard
   * (`git diff:*`) covers the arguments, never this, unless its fixed part names the option.
   */
  readonly effectOption?: string;
  /** Runs code whose effect cannot be read before it runs (`python -c …`, `perl -e …`, a piped script). */
  readonly opaque?: boolean;
}

/** The verdict on a whole command line: its strictest part decides. */
export interface LineAssessment {
  readonly tier: SafetyTier;
  readonly reason: string;
  readonly readOnly: boolean;
  readonly blocked: boolean;
  /** False when any part could not be judged statically: then no "always allow" is offered. */
  readonly understood: boolean;
  readonly commands: readonly CommandAssessment[];
}

/** Where judged lines run. */
export interface AssessContext extends ShellContext {
  /** The project root: deleting it, or a directory above it, is critical. */
  readonly projectRoot: string;
}

const DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper\/|dm-|md|loop|sr|mem$|kmem$|port$)/;
const HARMLESS_DEVICE = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|u?random|full)$/;
const SENSITIVE_PROC =
  /^\/proc\/[^/]*\/+(environ|mem|maps|smaps|pagemap|cmdline|auxv|stack|syscall|fd|fdinfo|root|cwd|exe|map_files|task|attr|io|status|mountinfo)(\/|$)|^\/dev\/(mem|kmem|port)$/;
/** System directories whose programs are the well-known ones (`/usr/bin/git`, `/bin/ls`). */
const SYSTEM_PROGRAM = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;
const SENSITIVE_PROC_TEXT =
  /\/proc\/[^/]*\/+(environ|mem|maps|smaps|pagemap|cmdline|auxv|stack|syscall|fd|root|cwd|exe|map_files|task)\b/;
const DOWNLOADERS = new Set([
  "curl",
  "wget",
  "fetch",
  "aria2c",
  "http",
  "https",
  "xh",
  "lwp-request",
  "lynx",
  "links",
]);
const INTERPRETERS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
  "python",
  "python2",
  "python3",
  "perl",
  "ruby",
  "node",
  "php",
  "lua",
  "deno",
  "bun",
  "source",
  ".",
  "osascript",
  "pwsh",
  "tclsh",
  "Rscript",
]);
const SYSTEM_POWER = new Set(["shutdown", "reboot", "halt", "poweroff", "telinit"]);
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
  "aria2c",
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
/** Programs that delete or destroy the files they are given. */
const DESTROYERS = new Set(["rm", "rmdir", "unlink", "shred", "truncate", "srm", "wipe"]);
/** Of those, the ones that delete directories recursively with -r/-R. */
const RECURSIVE_DELETERS = new Set(["rm", "srm", "wipe"]);
/** Compressors that replace each file with its compressed copy unless told to keep it. */
const COMPRESSORS = new Set(["gzip", "pigz", "bzip2", "pbzip2", "xz", "lzma", "lzip", "compress"]);
/** Programs that overwrite the file they are given last (`cp /dev/null f`, `dd of=f`). */
const OVERWRITERS = new Set(["cp", "install", "dd", "tee", "ln"]);

/**
 * Judges the line (see assessCommandLine), loading the bash grammar first when the line needs it
 * (a line of plain words does not); never rejects.
 */
export async function assessShellCommand(line: string, context: AssessContext): Promise<LineAssessment> {
  for (;;) {
    try {
      return assessCommandLine(line, context);
    } catch (error) {
      if (!(error instanceof BashParserNotLoadedError) || bashParserReady())
        // A flaw in judging must not stop the session, nor let the command through.
        return unjudgeable(line, `the command could not be judged (${(error as Error).message})`);
    }
    try {
      await loadBashParser();
    } catch (error) {
      return unjudgeable(line, `the shell parser is unavailable (${(error as Error).message})`);
    }
  }
}

function unjudgeable(line: string, reason: string): LineAssessment {
  const command = pseudoCommand(line);
  const a: CommandAssessment = {
    command,
    tier: "critical",
    reason,
    readOnly: false,
    blocked: false,
    understood: false,
    paths: [],
  };
  return { tier: "critical", reason, readOnly: false, blocked: false, understood: false, commands: [a] };
}

function pseudoCommand(text: string): SimpleCommand {
  return {
    id: 0,
    argv: [],
    words: [],
    assignments: [],
    redirects: [],
    wrappers: [],
    elevated: false,
    moreArgs: false,
    fedByCommand: false,
    cwdKnown: true,
    pipeline: -1,
    position: 0,
    depth: 0,
    text,
  };
}

/**
 * Classifies a shell line: every command found anywhere in it is judged after static expansion,
 * and the strictest verdict wins. What cannot be judged statically is critical (asks in every
 * mode, never remembered). Throws BashParserNotLoadedError when the line needs the grammar and
 * it is not loaded (see assessShellCommand).
 */
export function assessCommandLine(line: string, context: AssessContext): LineAssessment {
  const parsed = parseCommandLine(line, context);
  const judge = new Judge(context);
  const assessments: CommandAssessment[] = parsed.commands.map((c) => judge.command(c));
  for (const p of parsed.problems) {
    assessments.push({
      command: pseudoCommand(p.text),
      tier: "critical",
      reason: `cannot be judged before it runs: ${p.reason}`,
      readOnly: false,
      blocked: false,
      understood: false,
      paths: [],
    });
  }
  for (const f of parsed.functions) {
    if (f.recursive) {
      assessments.push({
        command: pseudoCommand(`${f.name}()`),
        tier: "critical",
        reason: f.spawns ? "fork bomb" : `the function ${f.name} calls itself`,
        readOnly: false,
        blocked: f.spawns,
        understood: true,
        paths: [],
      });
    }
  }
  assessments.push(...downloadsRun(parsed.commands));
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
    reason,
    readOnly: assessments.every((a) => a.readOnly),
    blocked: assessments.some((a) => a.blocked),
    understood: assessments.every((a) => a.understood),
    commands: assessments,
  };
}

/** `curl … | sh`, `bash <(curl …)`, `sh <<< "$(wget …)"`: downloaded code is run unseen. */
function downloadsRun(commands: readonly SimpleCommand[]): CommandAssessment[] {
  const out: CommandAssessment[] = [];
  const byId = new Map(commands.map((c) => [c.id, c]));
  const isDownload = (c: SimpleCommand) => DOWNLOADERS.has(programName(c.argv[0] ?? ""));
  const runsInput = (c: SimpleCommand) => {
    const program = programName(c.argv[0] ?? "");
    if (!INTERPRETERS.has(program)) return false;
    // `sh < <(…)`: the script comes from a process substitution.
    if (c.redirects.some((r) => r.op === "<" && r.target?.startsWith("/dev/fd/"))) return true;
    const operands = c.argv.slice(1).filter((a) => !a.startsWith("-") || a === "-");
    return (
      operands.length === 0 ||
      operands[0] === "-" ||
      operands[0]?.startsWith("/dev/fd/") ||
      c.argv.includes("-s")
    );
  };
  for (const runner of commands) {
    if (!runsInput(runner)) continue;
    const fed = commands.find((d) => {
      if (!isDownload(d)) return false;
      if (d.pipeline === runner.pipeline && d.position < runner.position && runner.pipeline >= 0) return true;
      // A download inside the runner's own arguments or redirections (`bash <(curl …)`).
      for (let up = d.within; up !== undefined; up = byId.get(up)?.within) if (up === runner.id) return true;
      return false;
    });
    const fromCommand =
      runner.fedByCommand ||
      runner.argv.slice(1).some((a) => a.startsWith("/dev/fd/")) ||
      runner.redirects.some((r) => r.op === "<" && r.target?.startsWith("/dev/fd/"));
    if (!fed && fromCommand) {
      out.push({
        command: runner,
        tier: "critical",
        reason: `${runner.argv[0]} runs code piped in from another command`,
        readOnly: false,
        blocked: false,
        understood: false,
        paths: [],
      });
    }
    if (fed) {
      out.push({
        command: runner,
        tier: "critical",
        reason: `runs downloaded code (${fed.argv[0]} into ${runner.argv[0]})`,
        readOnly: false,
        blocked: false,
        understood: true,
        paths: [],
      });
    }
  }
  return out;
}

/** Options a program's argv carries: short letters, long names, operands. */
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

class Judge {
  private readonly home: string;
  private readonly root: string;
  private readonly cwd: string;
  private readonly critical: readonly string[];

  constructor(context: AssessContext) {
    this.home = context.home ?? homedir();
    this.root = resolve(context.projectRoot);
    this.cwd = resolve(context.cwd);
    const real = (p: string) => {
      try {
        return canonicalPath(p, "/");
      } catch {
        return p;
      }
    };
    this.critical = [...new Set([this.root, real(this.root), this.home, real(this.home)])];
  }

  command(original: SimpleCommand): CommandAssessment {
    // After a `cd` out of the starting directory, a relative path could name anything.
    const command: SimpleCommand = original.cwdKnown
      ? original
      : {
          ...original,
          words: original.words.map((w, i) =>
            i > 0 && !w.text.startsWith("/") && !w.text.startsWith("-") ? { ...w, dynamic: true } : w,
          ),
        };
    const base = this.program(command);
    let result = base;
    if (command.elevated && base.tier !== "critical") {
      result = {
        ...base,
        tier: maxTier(base.tier, "high"),
        reason: `runs as root: ${base.reason}`,
        readOnly: false,
      };
    }
    const paths = [...result.paths];
    for (const redirect of command.redirects) {
      if (redirect.target === undefined && !redirect.dynamic) continue;
      const writes = redirect.op.includes(">");
      if (redirect.dynamic) {
        return {
          ...result,
          tier: "critical",
          understood: false,
          readOnly: false,
          reason: `redirects to a file not known before the line runs`,
        };
      }
      const target = redirect.target as string;
      const absolute = resolve(this.cwd, target);
      // `for f in src/*; do : > "$f"; done`: a truncating redirection onto a glob empties every file.
      if (/^(>|>\||&>)$/.test(redirect.op) && /[*?[]/.test(target) && !narrowPattern(target)) {
        const word = { text: target, dynamic: false, glob: true };
        const hit = this.catastrophicTarget(word) ?? this.trackedTarget(word, false);
        if (hit)
          return { ...result, tier: "critical", reason: `empties every file of ${hit}`, readOnly: false };
      }
      if (writes && DEVICE.test(absolute))
        return {
          ...result,
          tier: "critical",
          reason: `writes directly to the device ${target}`,
          readOnly: false,
          blocked: true,
        };
      // `echo b > /proc/sysrq-trigger` reboots; /proc/sys and /sys change the running kernel.
      if (writes && /^\/(proc|sys)\//.test(absolute))
        return { ...result, tier: "critical", reason: `writes kernel state (${target})`, readOnly: false };
      if (HARMLESS_DEVICE.test(absolute)) continue;
      const relativeUnknown = !command.cwdKnown && !target.startsWith("/");
      paths.push(
        this.pathUse({ text: target, dynamic: relativeUnknown, glob: false }, writes ? "write" : "read"),
      );
      if (writes) {
        result = {
          ...result,
          readOnly: false,
          tier: maxTier(result.tier, "medium"),
          reason: result.tier === "none" ? `writes to ${target}` : result.reason,
        };
      }
    }
    // Any command naming a process's memory or environment (`ln -s /proc/self/environ x`,
    // `curl -F f=@/proc/self/environ`), and entering /proc, where relative names reach them.
    const program = programName(command.argv[0] ?? "");
    const named = command.words.find(
      (w) =>
        SENSITIVE_PROC_TEXT.test(w.text) ||
        ((program === "cd" || program === "pushd") && /^\/proc(\/|$)/.test(resolve(this.cwd, w.text))),
    );
    const sensitive = paths.find((p) => this.isSensitive(p)) ?? (named && { text: named.text });
    if (sensitive)
      return {
        ...result,
        paths,
        tier: "critical",
        readOnly: false,
        reason: `touches ${sensitive.text}, which exposes a process's memory or secrets`,
      };
    return { ...result, paths };
  }

  private isSensitive(p: PathUse): boolean {
    if (p.absolute !== undefined && SENSITIVE_PROC.test(p.absolute)) return true;
    // Globs and variables: `/proc/*/environ`, `/proc/$PPID/mem`.
    return SENSITIVE_PROC_TEXT.test(p.text) || (p.absolute === undefined && /^\/proc(\/|$)/.test(p.text));
  }

  /** A word as a path: canonical when static (a glob's fixed leading part), unknown when dynamic. */
  private pathUse(word: Word, access: PathUse["access"]): PathUse {
    if (word.dynamic) return { text: word.text, access };
    // A process substitution's pipe (`diff <(ls) <(ls -a)`) and the standard devices.
    if (HARMLESS_DEVICE.test(word.text)) return { text: word.text, absolute: word.text, access };
    let text = word.text;
    if (word.glob) {
      const parts = text.split("/");
      const at = parts.findIndex((p) => /[*?[]/.test(p));
      text = parts.slice(0, at).join("/") || (text.startsWith("/") ? "/" : ".");
    }
    let absolute: string;
    try {
      absolute = canonicalPath(text, this.cwd);
    } catch {
      absolute = resolve(this.cwd, text);
    }
    return { text: word.text, absolute, access };
  }

  /** Is deleting (recursively) this word catastrophic: root, home, the project, or above them? */
  private catastrophicTarget(word: Word): string | undefined {
    if (word.dynamic) return `${word.text} (not known before the line runs)`;
    let text = word.text;
    let contents = false;
    // A glob quoted after expansion (`for f in *; do rm -rf "$f"; done`) still names every file.
    if (word.glob || /[*?[]/.test(text)) {
      const parts = text.split("/");
      const at = parts.findIndex((p) => /[*?[]/.test(p));
      contents = true;
      text = parts.slice(0, at).join("/") || (text.startsWith("/") ? "/" : ".");
    }
    const absolute = resolve(this.cwd, text);
    const describe = contents ? `everything in ${absolute}` : absolute;
    if (absolute === "/") return describe;
    // A top-level directory (/usr, /etc, /home…) or anything the home or project lies in.
    if (dirname(absolute) === "/") return describe;
    for (const c of this.critical) {
      if (isInside(absolute, c)) return describe;
    }
    if (absolute === resolve(this.root, ".git")) return `${absolute} (the project's history)`;
    return undefined;
  }

  /**
   * Does removing this word (recursively when `recursive`) take a directory of the project's
   * tracked files with it: the directory itself, or every file of one through a wide glob
   * (`src/*`; `src/*.o` is narrow). Build outputs and ignored folders hold none.
   */
  private trackedTarget(word: Word, recursive: boolean): string | undefined {
    if (word.dynamic) return undefined;
    let text = word.text;
    if (word.glob || /[*?[]/.test(text)) {
      if (narrowPattern(text)) return undefined;
      const parts = text.split("/");
      text =
        parts
          .slice(
            0,
            parts.findIndex((p) => /[*?[]/.test(p)),
          )
          .join("/") || ".";
    } else if (!recursive) return undefined;
    const absolute = resolve(this.cwd, text);
    if (!isInside(this.root, absolute) || absolute === resolve(this.root, ".git")) return undefined;
    return holdsTrackedFiles(this.root, absolute)
      ? `${text}, which holds the project's tracked files`
      : undefined;
  }

  /** Whether sed, perl or ruby is told to edit its files in place (`-i`, `-pi`, `--in-place`). */
  private editsInPlace(program: string, argv: readonly string[]): boolean {
    if (program === "sed" || program === "gsed")
      return argv.slice(1).some((x) => /^-[a-zA-Z]*i|^--in(-(p(l(a(c(e)?)?)?)?)?)?(=|$)/.test(x));
    if (program === "perl" || program === "ruby") return argv.slice(1).some((x) => /^-[a-zA-Z]*i/.test(x));
    return false;
  }

  private verdict(
    command: SimpleCommand,
    tier: SafetyTier,
    reason: string,
    readOnly = false,
    extra: Partial<CommandAssessment> = {},
  ): CommandAssessment {
    return { command, tier, reason, readOnly, blocked: false, understood: true, paths: [], ...extra };
  }

  private program(command: SimpleCommand): CommandAssessment {
    const result = this.programVerdict(command);
    const name = command.argv[0] ?? "";
    // `./ls` or `bin/git` is a program of the project's, not the system's read-only one.
    if (result.readOnly && name.includes("/") && !SYSTEM_PROGRAM.test(name))
      return { ...result, readOnly: false, tier: maxTier(result.tier, "medium"), reason: `runs ${name}` };
    return result;
  }

  private programVerdict(command: SimpleCommand): CommandAssessment {
    const argv = command.argv;
    const words = command.words;
    const program = programName(argv[0] ?? "");
    const v = (tier: SafetyTier, reason: string, readOnly = false, extra: Partial<CommandAssessment> = {}) =>
      this.verdict(command, tier, reason, readOnly, extra);
    if (argv.length === 0) return v("none", "redirection only", true);
    if (words[0]?.dynamic)
      return v("critical", `the command name ${argv[0]} is not known before the line runs`, false, {
        understood: false,
      });
    const { short, long, operands } = flags(argv);
    const operandWords = operandsOf(words);
    const dynamicTail = command.moreArgs;

    if (DESTROYERS.has(program)) {
      const recursive =
        RECURSIVE_DELETERS.has(program) && (short.has("r") || short.has("R") || long.has("--recursive"));
      // Inside the project's .git: a recursive delete takes history with it (`rm .git/index.lock` is fine).
      const history = operandWords.find(
        (w) => !w.dynamic && isInside(resolve(this.root, ".git"), resolve(this.cwd, fixedPart(w))),
      );
      if (history && (recursive || history.glob))
        return v("critical", `deletes ${history.text}, part of the project's history`);
      const targets = program === "truncate" ? truncateOperands(words) : operandWords;
      const root = targets.find((w) => !w.dynamic && resolve(this.cwd, fixedPart(w)) === "/");
      if (recursive && (root || long.has("--no-preserve-root")))
        return v("critical", `recursive delete of ${root?.text ?? "/"}`, false, { blocked: true });
      const verb = program === "truncate" ? "empties" : program === "shred" ? "destroys" : "deletes";
      // Files found by find or passed by xargs: the action is as wide as what feeds it.
      const finder = command.wrappers.find((w) => /^find -/.test(w));
      if (dynamicTail && program !== "rmdir")
        return v(
          "critical",
          `${program} ${verb} every file xargs passes it (only known at run time)`,
          false,
          {
            understood: targets.every((w) => !w.dynamic),
          },
        );
      for (const w of targets) {
        // `rm -f $(find . -type f)`: the files are listed by a command when the line runs.
        if (w.dynamic && /\$\(|`/.test(w.text) && program !== "rmdir")
          return v("critical", `${program} ${verb} the files a command lists (${w.text})`, false, {
            understood: false,
          });
        const tracked = this.catastrophicTarget(w) ? undefined : this.trackedTarget(w, recursive);
        if (tracked && program !== "rmdir") return v("critical", `${program} ${verb} ${tracked}`);
        const hit = this.catastrophicTarget(w);
        if (!hit) continue;
        if (recursive || w.dynamic)
          return v(
            "critical",
            `${recursive ? "recursive " : ""}delete of ${hit}`,
            false,
            w.dynamic ? { understood: false } : {},
          );
        if (finder && program !== "rmdir")
          return v("critical", `${finder} ${program} ${verb} every file under ${hit}`);
        if (w.glob && program !== "rmdir" && !narrowPattern(w.text))
          return v("critical", `${program} ${verb} the project's files in bulk (${w.text})`);
        if (w.glob) return v("high", `${program} of ${hit}`);
      }
      // shred leaves nothing to recover by other means: more than one file at once is a wipe.
      if (program === "shred" || program === "srm" || program === "wipe")
        return targets.length > 1 || targets.some((w) => w.glob)
          ? v("critical", `shred destroys the contents of ${targets.map((w) => w.text).join(" ")}`)
          : v("high", "shred destroys file contents");
      return v(recursive ? "high" : "medium", recursive ? "recursive delete" : "deletes files");
    }
    // `find … -exec cp /dev/null {} ;`, `xargs -I{} dd if=/dev/null of={}`: each file found is overwritten.
    const finder = command.wrappers.find((w) => /^find -/.test(w));
    if ((finder || dynamicTail) && OVERWRITERS.has(program)) {
      const targets =
        program === "dd"
          ? words.filter((w) => w.text.startsWith("of=")).map((w) => ({ ...w, text: w.text.slice(3) }))
          : program === "tee"
            ? operandWords
            : operandWords.slice(-1);
      const hit = targets.map((w) => this.catastrophicTarget(w)).find(Boolean);
      if (hit) return v("critical", `${finder ?? "xargs"} ${program} overwrites every file under ${hit}`);
    }
    // `for f in src/*; do cp /dev/null "$f"; done`: the glob carried by the loop names every file.
    if (program === "cp" || program === "dd") {
      const target =
        program === "dd"
          ? words.filter((w) => w.text.startsWith("of=")).map((w) => ({ ...w, text: w.text.slice(3) }))[0]
          : operandWords.length > 1
            ? operandWords.at(-1)
            : undefined;
      if (
        target &&
        !target.dynamic &&
        (target.glob || /[*?[]/.test(target.text)) &&
        !narrowPattern(target.text)
      ) {
        const hit = this.catastrophicTarget(target) ?? this.trackedTarget(target, false);
        if (hit) return v("critical", `${program} overwrites every file of ${hit}`);
      }
    }
    // `find . -type f -exec sed -i … {} +` edits every file under the root in place, the repository's
    // own objects in .git included (which checkpoints do not keep): a bulk rewrite that corrupts history.
    // A filtered find (`-name '*.ts'`) or a listed set (`$(git ls-files)`) stays out of .git.
    if (finder && this.editsInPlace(program, argv)) {
      const hit = operandWords
        .filter((w) => !w.text.includes("{found}"))
        .map((w) => this.catastrophicTarget(w))
        .find(Boolean);
      if (hit)
        return v("critical", `${finder} ${program} rewrites every file under ${hit} in place, .git included`);
    }
    if (program === "mv") {
      // With -t/--target-directory every operand is a source.
      const targetOption = argv.slice(1).some((a) => /^-[a-zA-Z]*t|^--ta/.test(a));
      const sources = targetOption ? operandWords : operandWords.slice(0, -1);
      for (const w of sources) {
        const hit = this.catastrophicTarget(w);
        if (hit && !w.dynamic) return v("critical", `moves away ${hit}`);
      }
      // A folder of tracked files moved out of the project (renaming it inside is everyday work).
      const destination = targetOption
        ? argv.slice(1).find((a, i, all) => /^-[a-zA-Z]*t$/.test(all[i - 1] ?? "") || /^--ta/.test(a))
        : operandWords.at(-1)?.text;
      const out =
        destination === undefined ||
        operandWords.at(-1)?.dynamic ||
        !isInside(this.root, resolve(this.cwd, destination.replace(/^--ta[a-z-]*=/, "")));
      const tracked = out ? sources.map((w) => this.trackedTarget(w, true)).find(Boolean) : undefined;
      if (tracked) return v("critical", `moves ${tracked} out of the project`);
      if (
        dynamicTail ||
        command.wrappers.some((w) => /^find -/.test(w)) ||
        operandWords.some((w) => w.dynamic && /\$\(|`/.test(w.text))
      )
        return v("critical", "moves away files only known at run time", false, { understood: false });
    }
    if (program === "tar" || program === "bsdtar" || program === "gtar") {
      const removes = argv.slice(1).find((a) => /^--rem(o(v(e(-(f(i(l(es?)?)?)?)?)?)?)?)?$/.test(a));
      if (removes) {
        const hit =
          operandWords.map((w) => this.catastrophicTarget(w)).find(Boolean) ??
          operandWords.map((w) => this.trackedTarget(w, true)).find(Boolean);
        if (hit || operandWords.some((w) => w.glob && !narrowPattern(w.text)))
          return v("critical", `tar ${removes} deletes ${hit ?? "the project's files"} once archived`);
        return v("high", `tar ${removes} deletes the files it archives`);
      }
      // Options whose value is a command tar runs: what it does cannot be read.
      const runs = argv
        .slice(1)
        .find((a) => /^--(to-c|checkpoint-a|use-c|info-s|new-v|rsh-c)|^-[a-zA-Z]*[IF]/.test(a));
      if (runs) return v("medium", `tar ${runs} runs a command`, false, { opaque: true, effectOption: runs });
    }
    if (program === "7z" || program === "7za" || program === "7zz") {
      if (argv.includes("-sdel")) {
        const hit = operandWords
          .slice(2)
          .map((w) => this.catastrophicTarget(w))
          .find(Boolean);
        if (
          hit ||
          operandWords.slice(2).length === 0 ||
          operandWords.slice(2).some((w) => w.glob && !narrowPattern(w.text))
        )
          return v("critical", `7z -sdel deletes ${hit ?? "the project's files"} once archived`);
        return v("high", "7z -sdel deletes the files it archives");
      }
    }
    if (COMPRESSORS.has(program)) {
      const keeps = argv
        .slice(1)
        .some((a) => /^-[a-zA-Z0-9]*[cktl]|^--(stdout|to-stdout|keep|test|list)/.test(a));
      const recursive = short.has("r") || long.has("--recursive");
      const fed = dynamicTail || command.wrappers.some((w) => /^find -/.test(w));
      const bulk = operandWords.some(
        (w) =>
          (recursive || fed || w.dynamic || (w.glob && !narrowPattern(w.text))) &&
          this.catastrophicTarget(w) !== undefined,
      );
      if (!keeps && (bulk || (dynamicTail && operandWords.length === 0)))
        return v("critical", `${program} replaces the project's files with compressed copies`);
    }
    if ((program === "fd" || program === "fdfind") && argv.some((a) => /^(-[a-zA-Z]*[xX]|--exec)/.test(a))) {
      // fd -x/-X runs a command on everything found, like find -exec.
      const at = argv.findIndex((a, i) => i > 0 && /^(-[a-zA-Z]*[xX]|--exec(-batch)?)$/.test(a));
      const inner = programName(argv[at + 1] ?? "");
      if (DESTROYERS.has(inner) || inner === "mv" || OVERWRITERS.has(inner))
        return v("critical", `fd runs ${inner} on every file it finds`);
    }
    if (program === "zip") {
      // -m (--move) deletes what it archives; -TT (--unzip-command) runs a test command.
      const moves = argv.slice(1).find((a) => /^--mo(ve?)?$/.test(a) || /^-[a-zA-Z0-9]*m/.test(a));
      if (moves) {
        const sources = operandWords.slice(1);
        const recursive = argv.slice(1).some((a) => /^-[a-zA-Z0-9]*r|^--recurse-p/.test(a));
        const hit =
          sources.map((w) => this.catastrophicTarget(w)).find(Boolean) ??
          sources.map((w) => this.trackedTarget(w, recursive)).find(Boolean);
        if (hit || sources.some((w) => w.glob && !narrowPattern(w.text)) || sources.length === 0)
          return v("critical", `zip ${moves} moves ${hit ?? "the project's files"} into the archive`);
        return v("high", `zip ${moves} deletes the files it archives`);
      }
      const runs = argv.slice(1).find((a) => /^(-TT|--unzip-command|--unz)/.test(a));
      if (runs) return v("medium", `zip ${runs} runs a command`, false, { opaque: true, effectOption: runs });
    }
    if (program === "find") return this.find(command);
    if (
      /^mkfs(\.|$)/.test(program) ||
      ["mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "gdisk", "sgdisk"].includes(program)
    )
      return v("critical", "formats or partitions a disk", false, { blocked: program.startsWith("mkfs") });
    if (program === "dd") {
      const of = argv.find((a) => a.startsWith("of="))?.slice(3);
      if (of && DEVICE.test(resolve(this.cwd, of)))
        return v("critical", `dd onto the device ${of}`, false, { blocked: true });
      return v("high", "raw copy with dd");
    }
    if (program === "chmod" || program === "chown" || program === "chgrp") {
      const recursive = short.has("R") || long.has("--recursive");
      const hit = recursive
        ? operandWords
            // The first operand is the mode or owner.
            .slice(1)
            .map((w) => this.catastrophicTarget(w))
            .find(Boolean)
        : undefined;
      if (hit)
        return v("critical", `recursive ${program} of ${hit}`, false, {
          blocked: operands.includes("/") && operands.includes("777"),
        });
      if (recursive || operands.some((o) => /^0?777$/.test(o) || o === "a+rwx"))
        return v("high", `${recursive ? "recursive " : ""}${program}`);
      return v("medium", `changes file ${program === "chmod" ? "modes" : "owners"}`);
    }
    if (
      SYSTEM_POWER.has(program) ||
      (program === "init" && /^[06]$/.test(operands[0] ?? "")) ||
      (program === "systemctl" && /^(poweroff|reboot|halt|kexec|emergency|rescue)$/.test(operands[0] ?? ""))
    )
      return v("critical", "shuts down or reboots the machine");
    if (program === "kill" || program === "pkill" || program === "killall" || program === "killall5") {
      if (program === "killall5") return v("critical", "kills every process");
      if (program === "kill") {
        const args = argv.slice(1);
        const pids: string[] = [];
        for (let i = 0; i < args.length; i++) {
          const a = args[i] as string;
          if (a === "-s" || a === "-n" || a === "--signal") i++;
          else if (a === "--") {
            pids.push(...args.slice(i + 1));
            break;
          } else if (i === 0 && /^-([A-Za-z]+|\d+)$/.test(a) && args.length > 1) continue;
          else if (a.startsWith("-") && !/^-\d+$/.test(a)) continue;
          else pids.push(a);
        }
        if (pids.includes("-1") || (args.length === 1 && args[0] === "-1"))
          return v("critical", "kills every process (kill -1)");
        if (pids.some((p) => /^-?0*1$/.test(p) || p === "0"))
          return v("critical", "signals init or the whole process group");
      }
      return v("high", "kills processes");
    }
    if (program === "sudo" || program === "su" || program === "doas" || program === "pkexec")
      return v("high", "runs as another user");
    if (program === "crontab" && (short.has("r") || short.has("e"))) return v("high", "changes the crontab");
    if (program === "git") return this.git(command);
    if (PACKAGE_MANAGERS.has(program)) {
      const r = packageManagerVerdict(argv);
      return v(r.tier, r.reason, r.readOnly);
    }
    if (program === "npx" || program === "pnpx" || program === "bunx") {
      const tool = operands[0] ?? "";
      if (TEST_RUNNERS.has(tool)) return v("none", `runs ${tool}`);
      return v("medium", `runs a package binary (${tool || program})`);
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
    if (program === "twine" && operands[0] === "upload")
      return v("high", "publishes a package (twine upload)");
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
    if (program === "rsync" && argv.some((a) => /^--(del|remove-s)/.test(a))) {
      // --delete empties the destination; --remove-source-files deletes the sources.
      const removesSources = argv.some((a) => /^--remove-s/.test(a));
      const named = removesSources ? operandWords.slice(0, -1) : operandWords.slice(-1);
      const hit = named.map((w) => this.catastrophicTarget(w)).find(Boolean);
      const destination = named.find((w) => this.catastrophicTarget(w));
      if (hit)
        return v(
          "critical",
          `rsync ${removesSources ? "--remove-source-files deletes" : "--delete empties"} ${hit}`,
          false,
          destination?.dynamic ? { understood: false } : {},
        );
    }
    if (NETWORK.has(program)) return v("medium", `network access (${program})`);
    if (program === "make" && ["test", "check", "lint"].includes(operands[0] ?? ""))
      return v("none", `make ${operands[0]}`);
    if (program === "tee") {
      for (const w of operandWords) {
        const target = resolve(this.cwd, w.text);
        if (DEVICE.test(target))
          return v("critical", `writes directly to the device ${w.text}`, false, { blocked: true });
        if (/^\/(proc|sys)\//.test(target)) return v("critical", `writes kernel state (${w.text})`);
      }
    }
    const ro = readOnlyVerdict(program, argv, words);
    if (ro) {
      if (!ro.readOnly)
        return v(ro.tier ?? "medium", ro.reason, false, {
          ...(ro.effectOption !== undefined && { effectOption: ro.effectOption }),
          ...(ro.opaque === true && { opaque: true }),
          ...(ro.understood === false && { understood: false, tier: "critical" }),
        });
      if (dynamicTail && ro.paths !== "none")
        return v("none", `${ro.reason} on input only known at run time`, true, {
          paths: [{ text: "(xargs input)", access: "read" }],
        });
      const paths =
        ro.paths === "none"
          ? []
          : [...(ro.paths ?? operandWords), ...optionPaths(words)].map((w) => this.pathUse(w, "read"));
      return v("none", ro.reason, true, { paths });
    }
    if (INTERPRETERS.has(program) && !SHELLS.has(program) && runsInlineCode(command))
      return v("medium", `runs ${program} code given on the line or piped in`, false, { opaque: true });
    return v("medium", `runs ${program}`);
  }

  private find(command: SimpleCommand): CommandAssessment {
    const words = command.words;
    const v = (tier: SafetyTier, reason: string, readOnly = false, extra: Partial<CommandAssessment> = {}) =>
      this.verdict(command, tier, reason, readOnly, extra);
    const starts: Word[] = [];
    let i = 1;
    for (; i < words.length; i++) {
      const t = (words[i] as Word).text;
      if (t.startsWith("-") || t === "(" || t === "!") break;
      starts.push(words[i] as Word);
    }
    if (starts.length === 0) starts.push({ text: ".", dynamic: false, glob: false });
    const rest = command.argv.slice(i);
    const paths = starts.map((w) => this.pathUse(w, "read"));
    // GNU find takes its starting points from a file: they are not known before the line runs.
    const listed = rest.indexOf("-files0-from");
    if (listed >= 0) paths.push({ text: `${rest[listed + 1] ?? ""} (the paths it lists)`, access: "read" });
    if (rest.includes("-delete")) {
      // Only tests before -delete narrow it: `find . -delete -name x` deletes everything.
      const filtered = findNarrows(rest.slice(0, rest.indexOf("-delete")));
      const hit =
        starts.map((w) => this.catastrophicTarget(w)).find(Boolean) ??
        starts.map((w) => this.trackedTarget(w, true)).find(Boolean);
      // A filter narrows a cleanup inside the project (`find . -name '*.o' -delete`), not one of the
      // home directory or the file system (`find ~ -type f -delete`).
      const beyondProject = starts.some((w) => w.dynamic || !isInside(this.root, resolve(this.cwd, w.text)));
      if (hit && (!filtered || beyondProject))
        return v("critical", `find -delete of ${hit}`, false, {
          paths,
          ...(starts.some((w) => w.dynamic) && { understood: false }),
        });
      if (hit && starts.some((w) => w.dynamic))
        return v("critical", `find -delete under ${hit}`, false, { paths, understood: false });
      if (starts.some((w) => !w.dynamic && resolve(this.cwd, w.text) === "/"))
        return v("critical", "find -delete across the whole file system", false, { paths });
      return v("high", "find -delete removes files", false, { paths, effectOption: "-delete" });
    }
    const writer = rest.find((a) => /^-(fprint0?|fprintf|fls)$/.test(a));
    if (writer) return v("medium", `find ${writer} writes a file`, false, { paths, effectOption: writer });
    const runs = rest.find((a) => /^-(exec|execdir|ok|okdir)$/.test(a));
    if (runs)
      return v("none", "find runs a command for each file (judged separately)", false, {
        paths,
        effectOption: runs,
      });
    return v("none", "find", true, { paths });
  }

  private git(command: SimpleCommand): CommandAssessment {
    const argv = command.argv;
    const v = (tier: SafetyTier, reason: string, readOnly = false, extra: Partial<CommandAssessment> = {}) =>
      this.verdict(command, tier, reason, readOnly, extra);
    let i = 1;
    let unsafeGlobal: string | undefined;
    const paths: PathUse[] = [];
    while (i < argv.length && (argv[i] as string).startsWith("-")) {
      const a = argv[i] as string;
      if (a === "-C") {
        const dir = command.words[i + 1];
        if (dir) {
          const use = this.pathUse(dir, "read");
          if (use.absolute === undefined || !isInside(this.root, use.absolute))
            unsafeGlobal ??= `git -C ${dir.text} (a repository outside the project, whose configuration can run programs)`;
        }
        i += 2;
        continue;
      }
      if (a === "-c" || a.startsWith("-c") || a === "--config-env" || a.startsWith("--config-env="))
        unsafeGlobal ??= `git ${a} sets configuration that can run programs`;
      else if (a === "--exec-path" || a.startsWith("--exec-path="))
        unsafeGlobal ??= "git --exec-path changes which programs git runs";
      else if (/^--(git-dir|work-tree)/.test(a)) unsafeGlobal ??= `git ${a} points at another repository`;
      i += ["-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"].includes(a)
        ? 2
        : 1;
    }
    const sub = argv[i] ?? "";
    const rest = argv.slice(i + 1);
    const after = command.words.slice(i + 1);
    let { short, long, operands } = flags(["git", ...rest]);
    const table = programOptions(`git ${sub}`);
    const parsed = table ? parseOptions(table, after) : undefined;
    const optionWordPaths: Word[] = [];
    if (parsed) {
      // Options by their full names, as git's parse-options resolves abbreviations (`--outp`).
      const effect = optionWith(parsed, "exec", "write");
      if (effect)
        return v(
          "medium",
          `git ${sub} ${effect.written} ${effect.spec.effect === "exec" ? "runs a program" : "writes a file"}`,
          false,
          {
            effectOption: effect.written,
          },
        );
      short = new Set(
        parsed.options.filter((o) => !o.spec.name.startsWith("--")).map((o) => o.spec.name.slice(1)),
      );
      long = new Set([
        ...parsed.options.filter((o) => o.spec.name.startsWith("--")).map((o) => o.spec.name),
        ...parsed.unknown,
      ]);
      operands = parsed.operands.map((w) => w.text);
      for (const o of parsed.options) {
        if (o.spec.effect === "path" && o.valueWord) optionWordPaths.push(o.valueWord);
        if (o.spec.effect === "filelist")
          optionWordPaths.push({ text: `${o.value ?? ""} (the paths it lists)`, dynamic: true, glob: false });
      }
    }
    const wholeTree = (pathspec: string) =>
      /^(:\/?|:\(top\).*|:\/\*)$/.test(pathspec) ||
      this.catastrophicTarget({ text: pathspec, dynamic: false, glob: /[*?[]/.test(pathspec) }) !== undefined;
    const r = gitSubcommandVerdict(sub, rest, short, long, operands, wholeTree);
    const base = this.verdict(command, r.tier, r.reason, r.readOnly);
    // Configuration given on the line can make git run anything (core.pager, alias, diff.external).
    if (unsafeGlobal) return v(maxTier(base.tier, "medium"), unsafeGlobal, false, { paths, opaque: true });
    if (!base.readOnly) return base;
    // Paths a read-only git command reads (`git diff --no-index /etc/passwd x`, `--contents=…`).
    const withProgram = [command.words[0] as Word, ...after];
    const pathWords = [...operandsOf(withProgram), ...optionPaths(withProgram), ...optionWordPaths];
    return { ...base, paths: pathWords.map((w) => this.pathUse(w, "read")) };
  }
}

/**
 * Paths given inside options: `--file=/etc/x`, `-f/etc/x`, `--contents=~/.ssh/id_rsa`. Only
 * values that look like paths (absolute, home, parent) are taken: a pattern is not a path.
 */
function optionPaths(words: readonly Word[]): Word[] {
  const out: Word[] = [];
  for (const w of words.slice(1)) {
    if (w.dynamic || !w.text.startsWith("-") || w.text === "-" || w.text === "--") continue;
    const eq = w.text.indexOf("=");
    const value = eq >= 0 ? w.text.slice(eq + 1) : /^-[A-Za-z]+([/~].*)$/.exec(w.text)?.[1];
    if (value !== undefined && /^(\/|~|\.\.)/.test(value)) out.push({ ...w, text: value });
  }
  return out;
}

/**
 * True when an interpreter runs code from its own arguments or standard input (`python3 -c`,
 * `perl -e`, `node --eval`, `ruby <<EOF`) rather than a script file of the project.
 */
function runsInlineCode(command: SimpleCommand): boolean {
  const args = command.argv.slice(1);
  if (args.some((a) => /^-[a-zA-Z]*[ceErp]|^--(eval|print|command)\b/.test(a))) return true;
  const script = args.find((a) => !a.startsWith("-"));
  // `node --version`, `python3 -V`: nothing runs.
  if (args.length > 0 && args.every((a) => /^(--version|--help|-[vVh])$/.test(a)) && !command.fedByCommand)
    return false;
  return (
    script === undefined ||
    script === "-" ||
    // `deno eval '…'`
    (programName(command.argv[0] ?? "") === "deno" && script === "eval") ||
    command.fedByCommand ||
    command.redirects.some((r) => r.op === "<<" || r.op === "<<<" || r.op === "<<-" || r.op === "<")
  );
}

/** truncate's file operands: the words after its options and their values (`-s 0`, `-r REF`). */
function truncateOperands(words: readonly Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 1; i < words.length; i++) {
    const t = (words[i] as Word).text;
    if (/^(-[a-zA-Z]*[sr]|--size|--reference)$/.test(t)) i++;
    else if (!t.startsWith("-") || (words[i] as Word).dynamic) out.push(words[i] as Word);
  }
  return out;
}

/** A word's fixed leading directories when it is a glob (`/usr/*` → `/usr`), else the word. */
function fixedPart(word: Word): string {
  if (!word.glob) return word.text;
  const parts = word.text.split("/");
  const at = parts.findIndex((p) => /[*?[]/.test(p));
  return parts.slice(0, at).join("/") || (word.text.startsWith("/") ? "/" : ".");
}

/** The operand words of an argv (after the program), options left out. */
function operandsOf(words: readonly Word[]): Word[] {
  const out: Word[] = [];
  let ended = false;
  for (const w of words.slice(1)) {
    if (ended || w.dynamic || !w.text.startsWith("-") || w.text === "-") out.push(w);
    else if (w.text === "--") ended = true;
  }
  return out;
}
