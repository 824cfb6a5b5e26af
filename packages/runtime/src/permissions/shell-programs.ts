// What the shell parser knows about programs and builtins: which run other commands (wrappers,
// shells), which variables change what programs do, and how their options are read.
import type { Word } from "./shell-words.js";

/**
 * Variables whose value changes what another program runs or loads: setting one makes the line
 * impossible to judge (`GIT_EXTERNAL_DIFF=… git diff`, `LESSOPEN=… less`, `PATH=. ls`).
 */
export const DANGEROUS_VARIABLE =
  /^(PATH|CDPATH|IFS|ENV|BASH_ENV|BASH_XTRACEFD|SHELLOPTS|BASHOPTS|GLOBIGNORE|PROMPT_COMMAND|PS[0-4]|HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|TMPDIR|EDITOR|VISUAL|PAGER|MANPAGER|MANOPT|BROWSER|LESS|LESSOPEN|LESSCLOSE|LESSKEY|LESSSECURE|SSH_ASKPASS|SUDO_ASKPASS|RIPGREP_CONFIG_PATH|GREP_OPTIONS|NODE_OPTIONS|NODE_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PYTHONINSPECT|PYTHONBREAKPOINT|LUA_INIT|LUA_PATH|TERMINFO|TERMCAP|INPUTRC|HISTFILE|MAIL|MAILPATH|FCEDIT|TAR_OPTIONS|ZIPOPT|UNZIP|CARGO_HOME|RUSTC_WRAPPER|GOFLAGS|CC|CXX|LD|MAKEFLAGS|MFLAGS|GCONV_PATH|OPENSSL_CONF|OPENSSL_ENGINES|BAT_PAGER|BAT_OPTS|BAT_CONFIG_PATH|SYSTEMD_PAGER|DELTA_PAGER|AWKPATH|AWKLIBPATH|ZDOTDIR|EXINIT|VIMINIT|MYVIMRC|SUDO_EDITOR|FZF_DEFAULT_COMMAND)$|^(LD_|DYLD_|GIT_|BASH_FUNC_|NPM_CONFIG_|npm_config_|YARN_|PNPM_|LESS_|PIP_|PERL|PYTHON)/;

/** Programs run in front of another program with the options they take values for. */
export const WRAPPERS: Readonly<
  Record<
    string,
    { readonly values: readonly string[]; readonly operands?: number; readonly elevates?: boolean }
  >
> = {
  nohup: { values: [] },
  time: { values: ["-f", "--format", "-o", "--output", "--o", "--ou", "--out", "--outp", "--outpu"] },
  nice: { values: ["-n", "--adjustment"] },
  ionice: { values: ["-c", "--class", "-n", "--classdata"] },
  timeout: { values: ["-s", "--signal", "-k", "--kill-after"], operands: 1 },
  stdbuf: { values: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  setsid: { values: [] },
  builtin: { values: [] },
  exec: { values: ["-a"] },
  coproc: { values: [] },
  busybox: { values: [] },
  unbuffer: { values: [] },
  chronic: { values: [] },
  caffeinate: { values: ["-t", "-w"] },
  flock: { values: ["-w", "--timeout", "-E", "--conflict-exit-code"], operands: 1 },
  taskset: { values: [], operands: 1 },
  sudo: {
    values: [
      "-u",
      "--user",
      "-g",
      "--group",
      "-h",
      "--host",
      "-p",
      "--prompt",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "-r",
      "--role",
      "-t",
      "--type",
      "-T",
      "--command-timeout",
      "-U",
      "--other-user",
    ],
    elevates: true,
  },
  doas: { values: ["-u", "-C"], elevates: true },
};

export const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
  "yash",
  "posh",
  "rbash",
]);
export const FIND_ACTIONS_WITH_COMMAND = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
/** Generated files a cleanup removes by pattern (`*.o`, `*.pyc`): matching only them narrows a bulk action. */
const GENERATED_FILE =
  /^\*?\.(o|obj|a|lo|la|so|dylib|pyc|pyo|class|log|tmp|temp|swp|swo|bak|orig|rej|gcda|gcno|tsbuildinfo)$|^\*~$|^\.DS_Store$|^__pycache__$/;

/**
 * True when a file pattern picks out a named file or generated files only (`a.txt`, `*.o`), so
 * acting on what it matches is not a bulk action on the project's sources (`*`, `*.js`).
 */
export function narrowPattern(pattern: string): boolean {
  const base = pattern.replace(/\/+$/, "").split("/").pop() ?? "";
  return !/[*?[]/.test(base) || GENERATED_FILE.test(base);
}

/**
 * True when find's tests (the words before its action) narrow what it finds to named or generated
 * files, a subdirectory's contents or empty files; a type, time or size test does not, nor a test
 * under `!`/`-not`, nor alternatives joined by `-o`.
 */
export function findNarrows(tests: readonly string[]): boolean {
  if (tests.some((t) => t === "-o" || t === "-or" || t === ",")) return false;
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i] as string;
    const negated = tests[i - 1] === "!" || tests[i - 1] === "-not";
    if (negated) continue;
    if (t === "-empty" || t === "-samefile" || t === "-inum") return true;
    const value = tests[i + 1] ?? "";
    if (/^-i?name$/.test(t) && narrowPattern(value)) return true;
    if (/^-i?(path|wholename)$/.test(t)) {
      // `./build/*` narrows to a subdirectory; `*/x` or `./*` does not.
      const fixed = value.split(/[*?[]/)[0] ?? "";
      if (narrowPattern(value) || /^\.?\/?[^/*?[]+\//.test(fixed)) return true;
    }
  }
  return false;
}

/** An array subscript holding a command substitution: bash runs it wherever it evaluates one. */
export const SUBSCRIPT_CODE = /\[[^\]]*(\$\(|`)/;
/** Builtins that evaluate subscripts or arithmetic in their (possibly quoted) arguments. */
export const EVALUATING_BUILTINS = new Set([
  "unset",
  "read",
  "mapfile",
  "readarray",
  "wait",
  "getopts",
  "printf",
  "test",
  "[",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "shift",
  "let",
  "return",
  "exit",
]);

/** The program a command name runs: the basename of a path. */
export function programName(name: string): string {
  const slash = name.lastIndexOf("/");
  return slash >= 0 ? name.slice(slash + 1) : name;
}

/** Skips a wrapper's options (and the option values it names) and `operands` leading operands. */
export function skipOptions(words: readonly Word[], values: readonly string[], operands: number): Word[] {
  let i = 0;
  for (; i < words.length; i++) {
    const t = (words[i] as Word).text;
    if (t === "--") {
      i++;
      break;
    }
    if (!t.startsWith("-") || t === "-") break;
    if (values.includes(t)) i++;
  }
  // Leading operands such as timeout's duration or flock's lock file.
  const start = i + operands;
  return start >= words.length ? [] : words.slice(start);
}

/** Reads `bash [options] -c SCRIPT` and friends: the script words, when there is one. */
export function shellInvocation(args: readonly Word[]): { command?: readonly Word[]; script?: boolean } {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as Word).text;
    if (t === "--") return command ? { command: args.slice(i + 1, i + 2) } : { script: i + 1 < args.length };
    if (t === "-o" || t === "+o" || t === "-O" || t === "+O" || t === "--rcfile" || t === "--init-file") {
      i++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(t)) {
      if (t.startsWith("-") && t.includes("c")) command = true;
      continue;
    }
    if (t.startsWith("--")) continue;
    return command ? { command: args.slice(i, i + 1) } : { script: true };
  }
  return {};
}

export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
