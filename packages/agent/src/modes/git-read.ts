/** Characters that would let a command do more than one thing: chaining, pipes, redirection, substitution. */
const SHELL_META = /[;&|<>`$()\\\n\r]/;

/** git subcommands that only read the repository. */
const READ_SUBCOMMANDS = new Set([
  "diff",
  "log",
  "show",
  "status",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "rev-list",
  "grep",
  "shortlog",
  "describe",
  "merge-base",
  "cat-file",
  "branch",
  "stash",
]);

/** `git branch` flags that list; anything else (a name, -d, -m, -f…) changes branches. */
const BRANCH_LIST_FLAGS = new Set([
  "-a",
  "-r",
  "-v",
  "-vv",
  "-l",
  "--list",
  "--all",
  "--remotes",
  "--verbose",
  "--show-current",
  "--no-color",
  "--color",
]);

/** Splits a command line into words, honouring single and double quotes; undefined when a quote is left open. */
function words(command: string): string[] | undefined {
  const out: string[] = [];
  let current = "";
  let inWord = false;
  let quote: string | undefined;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) return undefined;
  if (inWord) out.push(current);
  return out;
}

/** Options that make a reading command write a file or run a program. */
function writesOrRuns(arg: string): boolean {
  return (
    arg.startsWith("--output") ||
    arg.startsWith("--open-files-in-pager") ||
    /^-[a-zA-Z]*O/.test(arg) ||
    arg.startsWith("--exec")
  );
}

/**
 * Whether a shell command is a single git command that only reads: status, diff, log, show, blame,
 * grep and the like, without pipes, redirection, chaining, substitution, `-c` config overrides or
 * options that write files (--output) or start programs (grep -O).
 */
export function isGitReadCommand(command: string): boolean {
  if (SHELL_META.test(command)) return false;
  const argv = words(command.trim());
  if (argv?.[0] !== "git") return false;
  let i = 1;
  // Global options: only ones that cannot change what runs.
  while (i < argv.length && argv[i]!.startsWith("-")) {
    if (argv[i] === "--no-pager") i += 1;
    else if (argv[i] === "-C" && i + 1 < argv.length) i += 2;
    else return false;
  }
  const sub = argv[i];
  if (sub === undefined || !READ_SUBCOMMANDS.has(sub)) return false;
  const args = argv.slice(i + 1);
  if (args.some(writesOrRuns)) return false;
  if (sub === "branch") return args.every((a) => BRANCH_LIST_FLAGS.has(a));
  if (sub === "stash") return args[0] === "list" || args[0] === "show";
  return true;
}
