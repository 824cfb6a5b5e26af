/** A redirection attached to a simple command (`> out.txt`, `2>&1`, `< in`). */
export interface Redirect {
  readonly op: string;
  readonly target: string;
}

/** One simple command of a shell line, with wrapper programs and assignments stripped. */
export interface SimpleCommand {
  /** Program and arguments as the shell would pass them; argv[0] reduced to its basename. */
  readonly argv: readonly string[];
  /** Wrappers seen through, outermost first (`sudo`, `env`, `nohup`, `xargs`, `bash -c`…). */
  readonly wrappers: readonly string[];
  /** Leading `NAME=value` assignments (including those given to `env`). */
  readonly assignments: readonly string[];
  readonly redirects: readonly Redirect[];
  /** Which pipeline of the line this command belongs to, and its place in that pipeline. */
  readonly pipeline: number;
  readonly position: number;
  /** Nesting depth: 0 at top level, 1 inside `$(…)`, backticks or `bash -c`. */
  readonly depth: number;
  /** argv joined by single spaces: the form permission rules are matched against. */
  readonly text: string;
}

type Token =
  | { readonly kind: "word"; readonly value: string }
  | { readonly kind: "op"; readonly value: string }
  | { readonly kind: "redirect"; readonly value: string };

interface Lexed {
  readonly tokens: Token[];
  /** Command substitutions and process substitutions found inside words. */
  readonly nested: string[];
}

const MAX_DEPTH = 8;

/**
 * Splits a shell command line into simple commands: through `&&`, `||`, `;`, `|`, `&`, newlines,
 * subshells, `$(…)`, backticks and `bash -c '…'`, with quotes respected and prefixes such as
 * `VAR=x`, `env`, `sudo`, `nohup`, `time`, `nice`, `timeout`, `xargs` stripped. Never throws:
 * unbalanced quotes are read to the end of the line, the way a cautious reader would.
 */
export function parseCommandLine(line: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  parseInto(line, 0, out, { next: 0 });
  return out;
}

function parseInto(line: string, depth: number, out: SimpleCommand[], counter: { next: number }): void {
  if (depth > MAX_DEPTH) return;
  const { tokens, nested } = lex(line);
  let pipeline = counter.next++;
  let position = 0;
  let words: string[] = [];
  let redirects: Redirect[] = [];
  const flush = () => {
    if (words.length > 0 || redirects.length > 0) {
      for (const command of unwrap(words, redirects, pipeline, position, depth, counter)) {
        if (command.argv.length === 0 && command.wrappers.length > 0) continue;
        out.push(command);
      }
    }
    words = [];
    redirects = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind === "word") {
      // Grouping braces are syntax, not programs.
      if (words.length === 0 && (token.value === "{" || token.value === "}")) continue;
      words.push(token.value);
    } else if (token.kind === "redirect") {
      const next = tokens[i + 1];
      const target = next?.kind === "word" ? next.value : "";
      if (next?.kind === "word") i++;
      redirects.push({ op: token.value, target });
    } else if (token.value === "|" || token.value === "|&") {
      flush();
      position++;
    } else {
      flush();
      pipeline = counter.next++;
      position = 0;
    }
  }
  flush();
  for (const inner of nested) parseInto(inner, depth + 1, out, counter);
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish"]);

/** Strips assignments and wrapper programs; expands `bash -c` / `eval` into their own commands. */
function unwrap(
  words: readonly string[],
  redirects: readonly Redirect[],
  pipeline: number,
  position: number,
  depth: number,
  counter: { next: number },
): SimpleCommand[] {
  const wrappers: string[] = [];
  const assignments: string[] = [];
  let argv = [...words];
  const takeAssignments = () => {
    while (argv.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0] as string)) {
      assignments.push(argv.shift() as string);
    }
  };
  takeAssignments();
  for (let guard = 0; guard < 16 && argv.length > 0; guard++) {
    const program = basename(argv[0] as string);
    const stripped = stripWrapper(program, argv.slice(1));
    if (stripped === undefined) break;
    wrappers.push(program);
    argv = stripped;
    if (program === "env") takeAssignments();
  }
  const program = argv.length > 0 ? basename(argv[0] as string) : "";
  if (argv.length > 0) argv[0] = program;
  const make = (): SimpleCommand => ({
    argv,
    wrappers,
    assignments,
    redirects,
    pipeline,
    position,
    depth,
    text: argv.join(" "),
  });
  // `bash -c 'script'` and `eval 'script'` run another command line: look inside it too.
  const script = SHELLS.has(program)
    ? shellScriptArgument(argv)
    : program === "eval"
      ? argv.slice(1).join(" ")
      : undefined;
  if (script !== undefined && depth < MAX_DEPTH) {
    const inner: SimpleCommand[] = [];
    parseInto(script, depth + 1, inner, counter);
    const outer = make();
    return [
      outer,
      ...inner.map((c) => ({
        ...c,
        wrappers: [...wrappers, `${program} -c`, ...c.wrappers],
        assignments: [...assignments, ...c.assignments],
      })),
    ];
  }
  return [make()];
}

function shellScriptArgument(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("-")) return undefined;
    if (/^-[a-z]*c[a-z]*$/.test(arg)) return argv[i + 1];
  }
  return undefined;
}

/** Options that take a separate value, per wrapper. */
const WRAPPER_VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  env: new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
  sudo: new Set([
    "-u",
    "--user",
    "-g",
    "--group",
    "-h",
    "--host",
    "-p",
    "--prompt",
    "-C",
    "-D",
    "--chdir",
    "-r",
    "-t",
    "-U",
    "-T",
  ]),
  doas: new Set(["-u", "-C"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  timeout: new Set(["-s", "--signal", "-k", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]),
  xargs: new Set([
    "-I",
    "-L",
    "-n",
    "-P",
    "-d",
    "-E",
    "-s",
    "-a",
    "--max-args",
    "--max-procs",
    "--delimiter",
    "--arg-file",
  ]),
  exec: new Set(["-a"]),
  time: new Set(["-f", "--format", "-o", "--output"]),
  nohup: new Set(),
  command: new Set(),
  builtin: new Set(),
};

/** The argv after a wrapper program, or undefined when `program` is not a wrapper. */
function stripWrapper(program: string, rest: readonly string[]): string[] | undefined {
  const valueOptions = WRAPPER_VALUE_OPTIONS[program];
  if (!valueOptions) return undefined;
  // `command -v x` asks where x is; it runs nothing.
  if (program === "command" && (rest[0] === "-v" || rest[0] === "-V")) return undefined;
  let i = 0;
  const out: string[] = [];
  while (i < rest.length) {
    const arg = rest[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (program === "env" && arg === "-") {
        i++;
        continue;
      }
      break;
    }
    if (program === "env" && (arg === "-S" || arg === "--split-string")) {
      // env -S 'cmd args' splits its argument into words.
      const split = lex(rest[i + 1] ?? "")
        .tokens.filter((t) => t.kind === "word")
        .map((t) => t.value);
      out.push(...split);
      i += 2;
      continue;
    }
    if (/^-\d+$/.test(arg) && program === "nice") {
      i++;
      continue;
    }
    const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
    i += valueOptions.has(name) && !arg.includes("=") ? 2 : 1;
  }
  // timeout's first operand is the duration.
  if (program === "timeout" && i < rest.length) i++;
  out.push(...rest.slice(i));
  // xargs with no command runs echo.
  if (program === "xargs" && out.length === 0) out.push("echo");
  return out;
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash >= 0 && slash < word.length - 1 ? word.slice(slash + 1) : word;
}

/** Tokenizes one command line: words with quotes removed, operators, redirections. */
function lex(line: string): Lexed {
  const tokens: Token[] = [];
  const nested: string[] = [];
  const heredocs: string[] = [];
  let i = 0;
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) tokens.push({ kind: "word", value: word });
    word = "";
    inWord = false;
  };
  const n = line.length;
  while (i < n) {
    const c = line[i] as string;
    if (c === "\n") {
      endWord();
      tokens.push({ kind: "op", value: ";" });
      i++;
      // Skip here-document bodies: their lines are data, not commands.
      while (heredocs.length > 0) {
        const delimiter = heredocs.shift() as string;
        for (;;) {
          if (i >= n) break;
          const end = line.indexOf("\n", i);
          const text = line.slice(i, end < 0 ? n : end);
          i = end < 0 ? n : end + 1;
          if (text.replace(/^\t+/, "") === delimiter) break;
        }
      }
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      endWord();
      i++;
      continue;
    }
    if (c === "#" && !inWord) {
      while (i < n && line[i] !== "\n") i++;
      continue;
    }
    if (c === "\\") {
      if (line[i + 1] === "\n") i += 2;
      else {
        word += line[i + 1] ?? "";
        inWord = true;
        i += 2;
      }
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? n : end);
      inWord = true;
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === '"') {
      inWord = true;
      i++;
      while (i < n && line[i] !== '"') {
        const d = line[i] as string;
        if (d === "\\" && i + 1 < n && '"\\$`\n'.includes(line[i + 1] as string)) {
          if (line[i + 1] !== "\n") word += line[i + 1];
          i += 2;
        } else if (d === "$" && line[i + 1] === "(" && line[i + 2] !== "(") {
          const end = matchParen(line, i + 1);
          nested.push(line.slice(i + 2, end));
          word += line.slice(i, end + 1);
          i = end + 1;
        } else if (d === "`") {
          const end = matchBacktick(line, i);
          nested.push(line.slice(i + 1, end));
          word += line.slice(i, end + 1);
          i = end + 1;
        } else {
          word += d;
          i++;
        }
      }
      i++;
      continue;
    }
    if (c === "$" && line[i + 1] === "(") {
      const end = matchParen(line, i + 1);
      // $(( … )) is arithmetic, not a command.
      if (line[i + 2] !== "(") nested.push(line.slice(i + 2, end));
      word += line.slice(i, end + 1);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (c === "`") {
      const end = matchBacktick(line, i);
      nested.push(line.slice(i + 1, end));
      word += line.slice(i, end + 1);
      inWord = true;
      i = end + 1;
      continue;
    }
    if ((c === "<" || c === ">") && line[i + 1] === "(") {
      const end = matchParen(line, i + 1);
      nested.push(line.slice(i + 2, end));
      word += line.slice(i, end + 1);
      inWord = true;
      i = end + 1;
      continue;
    }
    // Redirections, with an optional file-descriptor number glued in front (2>, 2>&1).
    const redirect = /^(\d*)(&>>|&>|>>|>\||>&|>|<<<|<<-|<<|<&|<>|<)/.exec(line.slice(i, i + 8));
    if (redirect && (redirect[1] === "" || !inWord)) {
      endWord();
      const op = redirect[2] as string;
      i += redirect[0].length;
      tokens.push({ kind: "redirect", value: op });
      if (op === "<<" || op === "<<-") {
        // The delimiter word, quotes removed.
        while (line[i] === " " || line[i] === "\t") i++;
        const m = /^(['"]?)([^\s'";|&<>()]+)\1/.exec(line.slice(i));
        if (m) {
          heredocs.push(m[2] as string);
          tokens.push({ kind: "word", value: m[2] as string });
          i += m[0].length;
        }
      }
      continue;
    }
    const op = /^(&&|\|\||;;|\|&|[|;&()])/.exec(line.slice(i, i + 2));
    if (op) {
      endWord();
      tokens.push({ kind: "op", value: op[1] as string });
      i += (op[1] as string).length;
      continue;
    }
    word += c;
    inWord = true;
    i++;
  }
  endWord();
  return { tokens, nested };
}

/** Index of the `)` closing the `(` at `open`, honouring quotes and nesting; n-1 if unclosed. */
function matchParen(line: string, open: number): number {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const c = line[i];
    if (c === "\\") i++;
    else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') i += line[i] === "\\" ? 2 : 1;
    } else if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return line.length;
}

function matchBacktick(line: string, open: number): number {
  for (let i = open + 1; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (line[i] === "`") return i;
  }
  return line.length;
}
