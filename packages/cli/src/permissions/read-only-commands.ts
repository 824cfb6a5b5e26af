import type { Word } from "./shell-words.js";

/** A read-only program's verdict once its flags are checked. */
export interface ReadOnlyVerdict {
  readonly readOnly: boolean;
  readonly reason: string;
  readonly tier?: "none" | "medium" | "high";
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

/**
 * The verdict for programs known to be read-only in some uses, checked flag by flag; undefined
 * for other programs.
 */
export function readOnlyVerdict(
  program: string,
  argv: readonly string[],
  words: readonly Word[],
): ReadOnlyVerdict | undefined {
  const args = argv.slice(1);
  const has = (re: RegExp) => args.some((a) => re.test(a));
  const writes = (reason: string): ReadOnlyVerdict => ({ readOnly: false, reason, tier: "medium" });
  const runs = (reason: string): ReadOnlyVerdict => ({ readOnly: false, reason, tier: "medium" });
  const unclear = (reason: string): ReadOnlyVerdict => ({ readOnly: false, reason, understood: false });
  if (PAGERS_EDITORS.has(program)) return runs(`${program} is interactive and can run commands`);
  switch (program) {
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
      if (has(/^(-s|--set)/) || args.some((a) => !a.startsWith("-") && !a.startsWith("+")))
        return { readOnly: false, reason: "date may set the clock", tier: "high" };
      return { readOnly: true, reason: "date", paths: "none" };
    case "hostname":
      if (args.some((a) => !a.startsWith("-")) || has(/^(-F|--file|-b|--boot)/))
        return { readOnly: false, reason: "hostname may set the host name", tier: "high" };
      return { readOnly: true, reason: "hostname", paths: "none" };
    case "sort":
      if (has(/^(-o|--output)/) || args.some((a) => /^-[a-zA-Z]*o/.test(a) && !a.startsWith("--")))
        return writes("sort -o writes a file");
      if (has(/^--compress-program/)) return runs("sort --compress-program runs a program");
      return { readOnly: true, reason: "sort" };
    case "uniq": {
      const operands = words.slice(1).filter((w) => w.dynamic || !w.text.startsWith("-") || w.text === "-");
      if (operands.length >= 2) return writes("uniq with two files writes the second");
      return { readOnly: true, reason: "uniq" };
    }
    case "xxd": {
      const operands = words.slice(1).filter((w) => w.dynamic || !w.text.startsWith("-") || w.text === "-");
      if (operands.length >= 2) return writes("xxd with two files writes the second");
      return { readOnly: true, reason: "xxd", paths: operands.filter((w) => !/^\d+$/.test(w.text)) };
    }
    case "tee":
      if (words.slice(1).some((w) => w.dynamic || !w.text.startsWith("-"))) return writes("tee writes files");
      return { readOnly: true, reason: "tee" };
    case "tree":
      if (has(/^(-o|--output)/)) return writes("tree -o writes a file");
      return { readOnly: true, reason: "tree" };
    case "file":
      if (has(/^(-C|--compile)/)) return writes("file -C writes a magic file");
      return { readOnly: true, reason: "file" };
    case "base64":
      if (has(/^(-o|--output)/)) return writes("base64 -o writes a file");
      return { readOnly: true, reason: "base64" };
    case "rg":
      if (has(/^--(pre|pre-glob|hostname-bin)(=|$)/)) return runs("rg --pre runs a program on every file");
      if (has(/^(-z|--search-zip)$/) || args.some((a) => /^-[a-zA-Z]*z/.test(a) && !a.startsWith("--")))
        return runs("rg -z runs decompression programs");
      return { readOnly: true, reason: "rg", paths: grepPaths(words, rgValueOptions) };
    case "grep":
    case "egrep":
    case "fgrep":
    case "zgrep":
      return { readOnly: true, reason: program, paths: grepPaths(words, grepValueOptions) };
    case "sed": {
      if (has(/^(-i|--in-place)/) || args.some((a) => /^-[a-zA-Z]*i/.test(a) && !a.startsWith("--")))
        return writes("sed -i edits files in place");
      if (has(/^(-f|--file)/) || args.some((a) => /^-[a-zA-Z]*f/.test(a) && !a.startsWith("--")))
        return runs("sed -f runs a script file");
      const scripts: string[] = [];
      const files: Word[] = [];
      let explicit = false;
      for (let i = 1; i < words.length; i++) {
        const w = words[i] as Word;
        if (w.text === "-e" || w.text === "--expression") {
          explicit = true;
          const s = words[++i];
          if (!s || s.dynamic) return unclear("sed with a script not known before the line runs");
          scripts.push(s.text);
        } else if (w.text.startsWith("--expression=")) {
          explicit = true;
          scripts.push(w.text.slice(13));
        } else if (!w.text.startsWith("-") || w.dynamic) files.push(w);
      }
      if (!explicit) {
        const s = files.shift();
        if (!s || s.dynamic) return unclear("sed with a script not known before the line runs");
        scripts.push(s.text);
      }
      for (const s of scripts) {
        const problem = sedScriptEffect(s);
        if (problem) return runs(`sed script ${problem}`);
      }
      return { readOnly: true, reason: "sed", paths: files };
    }
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk": {
      if (has(/^(-f|--file|-i|--include|-l|--load|-E|--exec)/))
        return runs(`${program} loads a program file`);
      const valueOpts = new Set(["-v", "-F", "--assign", "--field-separator"]);
      let script: Word | undefined;
      const files: Word[] = [];
      for (let i = 1; i < words.length; i++) {
        const x = words[i] as Word;
        if (valueOpts.has(x.text)) {
          i++;
          continue;
        }
        if (x.text.startsWith("-") && !x.dynamic) continue;
        if (!script) script = x;
        else if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(x.text)) files.push(x);
      }
      if (!script || script.dynamic)
        return unclear(`${program} with a program not known before the line runs`);
      // Every argument is read as program text: gawk also takes it from `-e` and `--source=`.
      const code = words.slice(1).map((x) => x.text);
      if (code.some((t) => /\bsystem\s*\(|\|/.test(t))) return runs(`${program} program runs commands`);
      if (code.some((t) => /(print|printf)[^;{}]*>|\bclose\s*\(|\bfflush\s*\(|getline/.test(t)))
        return writes(`${program} program redirects output`);
      return { readOnly: true, reason: program, paths: files };
    }
    case "git":
      return undefined;
    case "env":
    case "printenv":
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
  if (NO_FILES.has(program)) return { readOnly: true, reason: program, paths: "none" };
  if (PLAIN_READERS.has(program)) return { readOnly: true, reason: program };
  return undefined;
}

const grepValueOptions = new Set([
  "-e",
  "--regexp",
  "-f",
  "--file",
  "-m",
  "--max-count",
  "-A",
  "-B",
  "-C",
  "--context",
  "--after-context",
  "--before-context",
  "--include",
  "--exclude",
  "--exclude-dir",
  "--label",
  "-d",
  "-D",
  "--color",
  "--colour",
]);
const rgValueOptions = new Set([
  "-e",
  "--regexp",
  "-f",
  "--file",
  "-m",
  "--max-count",
  "-A",
  "-B",
  "-C",
  "-g",
  "--glob",
  "--iglob",
  "-t",
  "--type",
  "-T",
  "--type-not",
  "-j",
  "--threads",
  "-M",
  "--max-columns",
  "--max-depth",
  "-d",
  "-E",
  "--encoding",
  "-r",
  "--replace",
  "--sort",
  "--sortr",
  "--type-add",
  "--colors",
  "--color",
  "--ignore-file",
  "--path-separator",
  "--max-filesize",
  "--engine",
]);

/** grep and rg: the pattern (unless given by -e/-f) is not a path; files given to -f are. */
function grepPaths(words: readonly Word[], valueOptions: ReadonlySet<string>): Word[] {
  const out: Word[] = [];
  let patternGiven = false;
  let ended = false;
  const operands: Word[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as Word;
    if (!ended && !w.dynamic && w.text === "--") {
      ended = true;
      continue;
    }
    if (!ended && !w.dynamic && w.text.startsWith("-") && w.text !== "-") {
      const name = w.text.split("=")[0] as string;
      if (name === "-e" || name === "--regexp") patternGiven = true;
      if (name === "-f" || name === "--file") {
        patternGiven = true;
        const file = w.text.includes("=")
          ? { ...w, text: w.text.slice(w.text.indexOf("=") + 1) }
          : words[i + 1];
        if (file) out.push(file);
      }
      if (valueOptions.has(w.text)) i++;
      continue;
    }
    operands.push(w);
  }
  return [...out, ...(patternGiven ? operands : operands.slice(1))];
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
