import {
  type FoundOption,
  hasOption,
  optionValues,
  optionWith,
  type ParsedOptions,
  parseOptions,
} from "./option-parser.js";
import { programOptions } from "./program-options.js";
import { DANGEROUS_VARIABLE } from "./shell-programs.js";
import type { Word } from "./shell-words.js";

/** A read-only program's verdict once its flags are checked. */
export interface ReadOnlyVerdict {
  readonly readOnly: boolean;
  readonly reason: string;
  readonly tier?: "none" | "medium" | "high" | "critical";
  /** The option that writes a file or runs a program (`--output=F`): no wildcard rule covers it. */
  readonly effectOption?: string;
  /** It runs code whose effect cannot be read before it runs. */
  readonly opaque?: boolean;
  /** False when a flag makes the command impossible to judge (`printf -v`, `test -v`). */
  readonly understood?: boolean;
  /** The words that are paths it reads: every operand by default, none for `echo` and the like. */
  readonly paths?: readonly Word[] | "none";
}

/** Programs that read no files: their operands are text, not paths. */
const NO_FILES = new Set([
  "xargs",
  "echo",
  "printf",
  "true",
  "false",
  ":",
  "seq",
  "yes",
  "sleep",
  "basename",
  "dirname",
  "pwd",
  "whoami",
  "id",
  "uname",
  "expr",
  "numfmt",
  "type",
  "which",
  "command",
  "hash",
  "printenv",
  "env",
  "tty",
  "nproc",
  "arch",
  "groups",
  "locale",
  "getconf",
  "wait",
  "jobs",
  "shift",
  "return",
  "exit",
  "break",
  "continue",
  "read",
  "local",
  "declare",
  "typeset",
  "export",
  "readonly",
  "set",
  "shopt",
  "unset",
  "ulimit",
  "umask",
  "let",
  "alias",
  "unalias",
]);

/** Programs that only inspect files or print, with no option that writes or runs something. */
const PLAIN_READERS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "nl",
  "cut",
  "tr",
  "paste",
  "rev",
  "fold",
  "column",
  "comm",
  "cmp",
  "diff",
  "tac",
  "strings",
  "od",
  "hexdump",
  "stat",
  "du",
  "df",
  "realpath",
  "readlink",
  "grep",
  "egrep",
  "fgrep",
  "zgrep",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "md5sum",
  "shasum",
  "cksum",
  "b2sum",
  "base32",
  "jq",
  "yq",
  "wc",
  "expand",
  "unexpand",
  "fmt",
  "pr",
  "look",
  "file",
  "lsof",
  "ps",
  "pgrep",
  "free",
  "uptime",
  "w",
  "who",
  "last",
  "env",
  "printenv",
  "locale",
  "getent",
  "cd",
  "pushd",
  "popd",
  "dirs",
  "tree",
  "exa",
  "eza",
  "bat",
  "fd",
  "fdfind",
  "ag",
  "ack",
  "tokei",
  "cloc",
  "cal",
  "test",
  "[",
  "iconv",
  "zcat",
  "bzcat",
  "xzcat",
  "gunzip",
  "base64",
]);

/** Pagers and editors run commands of their own (`!cmd`, LESSOPEN, modelines). */
const PAGERS_EDITORS = new Set([
  "less",
  "more",
  "most",
  "pg",
  "man",
  "vi",
  "vim",
  "nvim",
  "view",
  "nano",
  "pico",
  "emacs",
  "ed",
  "ex",
  "joe",
  "micro",
  "mcedit",
  "kak",
  "hx",
]);

/** Programs in the lists above whose options neither write, run code nor read other processes' data. */
const OPTIONS_WITHOUT_EFFECTS = new Set([
  "echo",
  "true",
  "false",
  ":",
  "seq",
  "yes",
  "sleep",
  "pwd",
  "whoami",
  "id",
  "uname",
  "expr",
  "numfmt",
  "type",
  "which",
  "command",
  "printenv",
  "tty",
  "nproc",
  "arch",
  "groups",
  "locale",
  "getconf",
  "wait",
  "jobs",
  "shift",
  "return",
  "exit",
  "break",
  "continue",
  "set",
  "shopt",
  "unset",
  "ulimit",
  "umask",
  "unalias",
  "column",
  "look",
  "lsof",
  "pgrep",
  "free",
  "uptime",
  "w",
  "who",
  "last",
  "getent",
  "popd",
  "dirs",
  "exa",
  "eza",
  "cal",
  "zcat",
  "bzcat",
]);

/** Builtins that assign the variables named among their operands. */
const ASSIGNING_BUILTINS = new Set([
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "export",
  "local",
  "declare",
  "typeset",
  "readonly",
]);

/**
 * The verdict for programs known to be read-only in some uses, checked option by option as the
 * program reads them (option-parser.ts); undefined for other programs.
 */
export function readOnlyVerdict(
  program: string,
  argv: readonly string[],
  words: readonly Word[],
): ReadOnlyVerdict | undefined {
  const args = argv.slice(1);
  const has = (re: RegExp) => args.some((a) => re.test(a));
  // Whatever makes the command write or run (an option, a script, an extra operand) is its
  // effect: a wildcard rule for the program does not cover it.
  const writes = (reason: string, option?: FoundOption): ReadOnlyVerdict => ({
    readOnly: false,
    reason,
    tier: "medium",
    effectOption: option?.written ?? reason,
  });
  // Code it runs (a pager, an awk system() call, a --pre program) cannot be read: opaque.
  const runs = (reason: string, option?: FoundOption): ReadOnlyVerdict => ({
    ...writes(reason, option),
    opaque: true,
  });
  const unclear = (reason: string): ReadOnlyVerdict => ({ readOnly: false, reason, understood: false });
  if (PAGERS_EDITORS.has(program)) return runs(`${program} is interactive and can run commands`);
  const table = programOptions(program);
  let parsed: ParsedOptions | undefined;
  let optionPaths: Word[] = [];
  if (table) {
    parsed = parseOptions(table, words.slice(1));
    const effect = optionWith(parsed, "exec", "write", "procs");
    if (effect?.spec.effect === "exec")
      return runs(`${program} ${effect.written} runs a program or code`, effect);
    if (effect?.spec.effect === "write") return writes(`${program} ${effect.written} writes a file`, effect);
    if (parsed.unknown.length > 0 && !table.effectsComplete)
      return {
        readOnly: false,
        reason: `${program} with an option whose effect is not known (${parsed.unknown[0]})`,
        tier: "medium",
        effectOption: parsed.unknown[0] as string,
      };
    optionPaths = parsed.options.flatMap((o) => {
      // The files it reads are listed in another file: they are not known before the line runs.
      if (o.spec.effect === "filelist")
        return [{ text: `${o.value ?? ""} (the files it lists)`, dynamic: true, glob: false }];
      // A value only known when the line runs may be a path: it is judged as an unknown one.
      if (o.valueWord?.dynamic) return [o.valueWord];
      return o.spec.effect === "path" && o.valueWord ? [o.valueWord] : [];
    });
  }
  /** Read-only, reading its operands and the paths its options name. */
  const reads = (reason: string, paths?: readonly Word[]): ReadOnlyVerdict => ({
    readOnly: true,
    reason,
    paths: [...(paths ?? parsed?.operands ?? []), ...optionPaths],
  });
  if (ASSIGNING_BUILTINS.has(program)) {
    const target = words
      .slice(1)
      .map((w) => /^([A-Za-z_][A-Za-z0-9_]*)(=|\[|$)/.exec(w.text)?.[1])
      .find((name) => name !== undefined && DANGEROUS_VARIABLE.test(name));
    if (target) return unclear(`${program} sets ${target}, which changes what later commands run`);
  }
  switch (program) {
    case "hash":
      if (args.some((a) => /^-[a-zA-Z]*p/.test(a)))
        return unclear("hash -p changes which program a later command name runs");
      return { readOnly: true, reason: "hash", paths: "none" };
    case "alias":
      if (args.some((a) => a.includes("="))) return unclear("alias changes what a later command name runs");
      return { readOnly: true, reason: "alias", paths: "none" };
    case "enable":
      return args.length === 0 || args.every((a) => /^-[aps]+$/.test(a))
        ? { readOnly: true, reason: "enable", paths: "none" }
        : unclear("enable loads or switches off builtins, changing what later command names run");
    case "ps":
      return psVerdict(words.slice(1));
    case "gunzip":
      // gunzip replaces FILE.gz with FILE unless it writes to standard output or only tests or lists.
      if (args.some((a) => /^-[a-zA-Z0-9]*[ctl]/.test(a) || /^--(stdout|to-stdout|test|list)$/.test(a)))
        return reads("gunzip");
      return writes("gunzip replaces each file with its decompressed copy");
    case "printf":
      if (args[0] === "-v" || /^-v./.test(args[0] ?? ""))
        return unclear("printf -v assigns to a variable whose subscript can run commands");
      return { readOnly: true, reason: "printf", paths: "none" };
    case "test":
    case "[":
      if (args.includes("-v") || args.includes("-R"))
        return unclear(`${program} -v evaluates an array subscript, which can run commands`);
      return { readOnly: true, reason: program };
    case "read":
    case "mapfile":
    case "readarray":
      if (args.some((a) => a.includes("[")) || has(/^-[a-zA-Z]*[uC]/))
        return unclear(`${program} into an array element or with a callback`);
      return { readOnly: true, reason: program, paths: "none" };
    case "let":
      return unclear("let evaluates arithmetic whose subscripts can run commands");
    case "date":
      if (parsed && hasOption(parsed, "-s", "--set"))
        return { readOnly: false, reason: "date -s sets the clock", tier: "high" };
      if (parsed?.operands.some((w) => !w.text.startsWith("+")))
        return { readOnly: false, reason: "date may set the clock", tier: "high" };
      return reads("date", []);
    case "hostname":
      if (args.some((a) => !a.startsWith("-")) || has(/^(-F|--file|-b|--boot)/))
        return { readOnly: false, reason: "hostname may set the host name", tier: "high" };
      return { readOnly: true, reason: "hostname", paths: "none" };
    case "uniq": {
      const operands = parsed?.operands ?? [];
      if (operands.length >= 2) return writes("uniq with two files writes the second");
      return reads("uniq");
    }
    case "xxd": {
      const operands = words.slice(1).filter((w) => w.dynamic || !w.text.startsWith("-") || w.text === "-");
      if (operands.length >= 2) return writes("xxd with two files writes the second");
      return { readOnly: true, reason: "xxd", paths: operands.filter((w) => !/^\d+$/.test(w.text)) };
    }
    case "tee":
      if ((parsed?.operands ?? []).length > 0) return writes("tee writes files");
      return { readOnly: true, reason: "tee" };
    case "rg":
      return reads("rg", grepPaths(parsed as ParsedOptions));
    case "grep":
    case "egrep":
    case "fgrep":
    case "zgrep":
      return reads(program, grepPaths(parsed as ParsedOptions));
    case "sed": {
      const p = parsed as ParsedOptions;
      const scripts = optionValues(p, "-e", "--expression");
      const files = [...p.operands];
      const texts: Word[] = scripts.map((o) => o.valueWord ?? { text: "", dynamic: true, glob: false });
      if (scripts.length === 0) {
        const first = files.shift();
        if (first) texts.push(first);
      }
      if (texts.length === 0 || texts.some((w) => w.dynamic))
        return unclear("sed with a script not known before the line runs");
      for (const s of texts) {
        const problem = sedScriptEffect(s.text);
        if (problem)
          return runs(`sed script ${problem}`, { spec: { name: "-e", value: "required" }, written: s.text });
      }
      return reads("sed", files);
    }
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk": {
      const p = parsed as ParsedOptions;
      const sources = optionValues(p, "-e", "--source");
      const operands = [...p.operands];
      const code: Word[] = sources.map((o) => o.valueWord ?? { text: "", dynamic: true, glob: false });
      if (sources.length === 0) {
        const first = operands.shift();
        if (first) code.push(first);
      }
      if (code.length === 0 || code.some((w) => w.dynamic))
        return unclear(`${program} with a program not known before the line runs`);
      // Assignments such as -v x=… are program text too (their values are strings, but a
      // compromised reading is cheap to avoid): every word is scanned.
      const all = words.slice(1).map((x) => x.text);
      // system(), pipes and coprocesses run commands; @load loads a shared library.
      if (all.some((t) => /\bsystem\s*\(|\||@load\b/.test(t)))
        return runs(`${program} program runs commands`);
      if (all.some((t) => /(print|printf)[^;{}]*>|\bclose\s*\(|\bfflush\s*\(|getline/.test(t)))
        return writes(`${program} program redirects output`);
      return reads(
        program,
        operands.filter((x) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(x.text)),
      );
    }
    case "git":
      return undefined;
    case "env":
      return { readOnly: true, reason: program, paths: "none" };
    case "export":
    case "local":
    case "declare":
    case "typeset":
    case "readonly":
      return { readOnly: true, reason: program, paths: "none" };
    case "cd":
    case "pushd":
      // A bare `cd` goes home, `cd -` where the shell was before: both leave the project.
      if (words.length === 1)
        return { readOnly: true, reason: program, paths: [{ text: "~", dynamic: true, glob: false }] };
      if (args[0] === "-")
        return { readOnly: true, reason: program, paths: [{ text: "-", dynamic: true, glob: false }] };
      return { readOnly: true, reason: program };
  }
  if (table)
    return NO_FILES.has(program) ? { readOnly: true, reason: program, paths: "none" } : reads(program);
  // A program without a table: known harmless whatever its options, or trusted only without options.
  const optionWords = words.slice(1).filter((w) => w.text.startsWith("-") && w.text !== "-");
  if (
    !OPTIONS_WITHOUT_EFFECTS.has(program) &&
    optionWords.length > 0 &&
    (NO_FILES.has(program) || PLAIN_READERS.has(program))
  )
    return {
      readOnly: false,
      reason: `${program} with options whose effect is not known (${optionWords[0]?.text})`,
      tier: "medium",
      effectOption: optionWords[0]?.text as string,
    };
  if (NO_FILES.has(program)) return { readOnly: true, reason: program, paths: "none" };
  if (PLAIN_READERS.has(program)) return { readOnly: true, reason: program };
  return undefined;
}

/**
 * ps: BSD-style letters (no dash) select what is shown, and `e` adds every process's environment
 * to its command line (`ps eww -A` prints the agent's own API key).
 */
function psVerdict(args: readonly Word[]): ReadOnlyVerdict {
  const bsdValues = new Set(["o", "O", "p", "t", "U", "k", "q", "g", "G"]);
  const unixValues = /^-[a-zA-Z]*[oOpPuUgGtCqsk]$/;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as Word;
    if (w.dynamic)
      return { readOnly: false, reason: "ps with options not known before the line runs", understood: false };
    const t = w.text;
    if (t.startsWith("--")) {
      if (
        !t.includes("=") &&
        /^--(format|pid|ppid|user|User|group|Group|sort|tty|cols|columns|lines|width|quick-pid|sid|rows)$/.test(
          t,
        )
      )
        i++;
      continue;
    }
    if (t.startsWith("-")) {
      // macOS (BSD) ps: -E adds each process's environment, as `e` does.
      const valueAt = t.search(/[oOpPuUgGtCqsk]/);
      const eAt = t.indexOf("E");
      if (eAt > 0 && (valueAt < 0 || eAt < valueAt))
        return {
          readOnly: false,
          tier: "critical",
          reason: `ps ${t}: -E prints every process's environment (macOS), the agent's own secrets included`,
          effectOption: t,
        };
      // procps reads `-auxe` as the BSD `auxe` when no user `xe` exists.
      if (/^-[a-zA-Z]*u[a-zA-Z]*e/.test(t))
        return {
          readOnly: false,
          tier: "critical",
          reason: `ps ${t} may be read as BSD options with e, printing every process's environment`,
          effectOption: t,
        };
      if (unixValues.test(t)) i++;
      continue;
    }
    for (let k = 0; k < t.length; k++) {
      const c = t[k] as string;
      if (c === "e")
        return {
          readOnly: false,
          tier: "critical",
          reason: "ps e prints every process's environment, the agent's own secrets included",
          effectOption: t,
        };
      if (bsdValues.has(c)) {
        if (k === t.length - 1) i++;
        break;
      }
    }
  }
  return { readOnly: true, reason: "ps", paths: "none" };
}

/** grep and rg: the pattern (unless given by -e/-f) is not a path; files given to -f are. */
function grepPaths(parsed: ParsedOptions): Word[] {
  const patternGiven = parsed.options.some((o) => /^(-e|--regexp|-f|--file)$/.test(o.spec.name));
  return patternGiven ? [...parsed.operands] : parsed.operands.slice(1);
}

/**
 * What a sed script does beyond printing, or undefined when it only prints: `w`/`W` write files,
 * `e` and the `e` flag of `s` run commands, `r`/`R` read arbitrary files.
 */
export function sedScriptEffect(script: string): string | undefined {
  let i = 0;
  const n = script.length;
  const skipSpace = () => {
    while (i < n && /[\s;]/.test(script[i] as string)) i++;
  };
  const readDelimited = (delimiter: string) => {
    while (i < n && script[i] !== delimiter) {
      if (script[i] === "\\") i++;
      else if (script[i] === "\n" && delimiter !== "\n") return false;
      i++;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = () => {
    if (script[i] === "$") i++;
    else if (/\d/.test(script[i] ?? "")) while (/[\d~]/.test(script[i] ?? "")) i++;
    else if (script[i] === "/") {
      i++;
      if (!readDelimited("/")) return false;
      while (/[IM]/.test(script[i] ?? "")) i++;
    } else if (script[i] === "\\") {
      const d = script[i + 1] ?? "";
      i += 2;
      if (!readDelimited(d)) return false;
    }
    return true;
  };
  while (i < n) {
    skipSpace();
    if (i >= n) break;
    if (script[i] === "#") {
      while (i < n && script[i] !== "\n") i++;
      continue;
    }
    if (!address()) return "cannot be read";
    if (script[i] === ",") {
      i++;
      if (script[i] === "+" || script[i] === "~") i++;
      if (!address()) return "cannot be read";
    }
    while (script[i] === " " || script[i] === "!") i++;
    const c = script[i] ?? "";
    i++;
    if ("{}=dDgGhHlnNpPqQxzF".includes(c)) {
      if (c === "q" || c === "Q" || c === "l") while (/[\d ]/.test(script[i] ?? "")) i++;
      continue;
    }
    if (c === "s") {
      const d = script[i] ?? "";
      i++;
      if (!readDelimited(d) || !readDelimited(d)) return "cannot be read";
      let flagsText = "";
      while (i < n && !/[;\n}]/.test(script[i] as string)) flagsText += script[i++];
      if (/[we]/.test(flagsText.replace(/\s.*$/, "").replace(/\d/g, "")))
        return /e/.test(flagsText) ? "runs commands (s///e)" : "writes a file (s///w)";
      continue;
    }
    if (c === "y") {
      const d = script[i] ?? "";
      i++;
      if (!readDelimited(d) || !readDelimited(d)) return "cannot be read";
      continue;
    }
    if ("aic".includes(c)) {
      while (i < n && script[i] !== "\n") {
        if (script[i] === "\\") i++;
        i++;
      }
      continue;
    }
    if ("btT:".includes(c)) {
      while (i < n && !/[;\n]/.test(script[i] as string)) i++;
      continue;
    }
    if (c === "w" || c === "W") return "writes a file";
    if (c === "e") return "runs commands";
    if (c === "r" || c === "R") return "reads other files";
    return `uses the command ${JSON.stringify(c)}`;
  }
  return undefined;
}
