import { homedir } from "node:os";
import { resolve } from "node:path";
import { parseBash, type SyntaxNode } from "./bash-parser.js";
import { type ProgramOptions, parseOptions } from "./option-parser.js";
import { canonicalPath, isInside } from "./paths.js";
import { programOptions } from "./program-options.js";
import {
  DANGEROUS_VARIABLE,
  EVALUATING_BUILTINS,
  FIND_ACTIONS_WITH_COMMAND,
  findNarrows,
  programName,
  SHELLS,
  SUBSCRIPT_CODE,
  shellInvocation,
  shellQuote,
  skipOptions,
  WRAPPERS,
} from "./shell-programs.js";
import { type VariableValues, type Word, WordExpander } from "./shell-words.js";

export { programName } from "./shell-programs.js";
export type { Word } from "./shell-words.js";

/** A redirection attached to a command (`> out.txt`, `2>&1`, `< in`, `<<EOF`). */
export interface Redirect {
  readonly op: string;
  /** The file, statically expanded; undefined for here-docs, here-strings and fd duplications. */
  readonly target?: string;
  /** The target could not be expanded statically. */
  readonly dynamic: boolean;
  /** Here-docs and here-strings: the text fed to the command, when it is known statically. */
  readonly body?: string;
}

/** A `NAME=value` given to a command, to `env`, or on its own. */
export interface Assignment {
  readonly name: string;
  /** Undefined when the value is not statically known. */
  readonly value?: string;
}

/** One simple command found anywhere in a shell line, wrappers (sudo, env, timeout…) seen through. */
export interface SimpleCommand {
  readonly id: number;
  /** Program and arguments after static expansion (a dynamic word keeps its source text). */
  readonly argv: readonly string[];
  readonly words: readonly Word[];
  readonly assignments: readonly Assignment[];
  readonly redirects: readonly Redirect[];
  /** Wrappers seen through, outermost first: `sudo`, `timeout`, `xargs`, `bash -c`, `find -exec`… */
  readonly wrappers: readonly string[];
  /** Runs as another user (sudo, doas, su). */
  readonly elevated: boolean;
  /** More arguments arrive at run time (`xargs`). */
  readonly moreArgs: boolean;
  /** Its standard input is another command's output (a later pipeline stage, or `>(…)`). */
  readonly fedByCommand: boolean;
  /**
   * False when the line may change directory out of where it starts (`cd /`, `cd -`, `popd`,
   * `eval`, `source`): relative paths then name files that cannot be known statically.
   */
  readonly cwdKnown: boolean;
  /** Which pipeline this command is a stage of, and which stage. */
  readonly pipeline: number;
  readonly position: number;
  /** The command whose arguments or redirections contain this one (`$(…)`, `<(…)`), if any. */
  readonly within?: number;
  /** 0 at top level; one more inside each `bash -c`, `eval`, alias or `find -exec`. */
  readonly depth: number;
  /** argv joined by single spaces: the form permission rules are matched against. */
  readonly text: string;
}

/** Something in a line that cannot be judged statically; the line then needs approval. */
export interface ShellProblem {
  readonly reason: string;
  readonly text: string;
}

/** A function the line defines, and whether its body calls itself (a fork bomb's shape). */
export interface FunctionDefinition {
  readonly name: string;
  readonly recursive: boolean;
  readonly spawns: boolean;
}

/** Everything found in a shell line. */
export interface ParsedLine {
  readonly commands: readonly SimpleCommand[];
  readonly problems: readonly ShellProblem[];
  readonly functions: readonly FunctionDefinition[];
}

/** Where a line runs: relative paths, `$PWD` and `~` expand against these. */
export interface ShellContext {
  readonly cwd: string;
  readonly home?: string;
}

const MAX_DEPTH = 6;
const MAX_COMMANDS = 2000;

interface WalkContext {
  readonly pipeline: number;
  readonly position: number;
  readonly within?: number;
  readonly depth: number;
  readonly wrappers: readonly string[];
  readonly elevated: boolean;
  /** Arguments are appended at run time (the command runs under xargs). */
  readonly moreArgs?: boolean;
  /** Inside `>(…)`: standard input comes from the outer command. */
  readonly fed?: boolean;
}

interface Scope {
  readonly assigned: Map<string, Set<string> | "dynamic">;
  /** Byte offsets of unconditional top-level assignments, by variable. */
  readonly definite: Map<string, number>;
  readonly aliases: Map<string, string>;
}

/**
 * Finds every simple command of a bash line with tree-sitter's bash grammar — in pipelines,
 * lists, subshells, substitutions (also inside double quotes and here-docs), loops, conditionals,
 * functions, `eval`/`bash -c` strings, `xargs`, `find -exec` and wrappers — and what in it cannot
 * be judged statically. Throws BashParserNotLoadedError when the line needs the grammar before
 * loadBashParser() has finished.
 */
export function parseCommandLine(line: string, context: ShellContext): ParsedLine {
  const state = new ParseState(context);
  state.parseSource(line, {
    pipeline: state.nextPipeline(),
    position: 0,
    depth: 0,
    wrappers: [],
    elevated: false,
  });
  return { commands: state.commands, problems: state.problems, functions: state.functions };
}

class ParseState {
  readonly commands: SimpleCommand[] = [];
  readonly problems: ShellProblem[] = [];
  readonly functions: FunctionDefinition[] = [];
  private pipelines = 0;
  /** Somewhere in the line the working directory may leave the starting one. */
  cwdUncertain = false;
  /** Redirections the grammar attached to a list, for the list's last command. */
  private readonly tailRedirects = new Map<number, readonly Redirect[]>();
  private ids = 1;
  private readonly home: string;

  constructor(private readonly context: ShellContext) {
    this.home = context.home ?? homedir();
  }

  nextPipeline(): number {
    return this.pipelines++;
  }

  newId(): number {
    return this.ids++;
  }

  problem(reason: string, text: string): void {
    if (!this.problems.some((p) => p.reason === reason && p.text === text))
      this.problems.push({ reason, text });
  }

  parseSource(source: string, ctx: WalkContext, inherited?: Scope): void {
    if (ctx.depth > MAX_DEPTH) {
      this.problem("commands nested too deeply to follow", source);
      return;
    }
    // bash joins lines ending in an unescaped backslash before it reads words; the grammar does not
    // everywhere (`r\<newline>m` is `rm`). The grammar lacks the read-write redirection `<>`: it is
    // judged as the write it also is (`exec 3<>/dev/tcp/…` as `exec 3>/dev/tcp/…`).
    const tree = parseBash(source.replace(/(?<!\\)((?:\\\\)*)\\\n/g, "$1").replaceAll("<>", ">"));
    try {
      const root = tree.rootNode;
      if (root.hasError) this.problem("the shell syntax could not be parsed", source);
      const scope: Scope = {
        assigned: new Map(inherited?.assigned),
        definite: new Map(),
        aliases: new Map(inherited?.aliases),
      };
      const expander = this.expander(scope);
      this.collectAssignments(root, scope, expander);
      this.walk(root, ctx, scope, expander);
    } finally {
      tree.delete();
    }
  }

  private expander(scope: Scope): WordExpander {
    const inherited = (name: string): VariableValues =>
      name === "HOME" ? [this.home] : name === "PWD" && !this.cwdUncertain ? [this.context.cwd] : "dynamic";
    const lookup = (name: string, at: number): VariableValues => {
      const assigned = scope.assigned.get(name);
      if (assigned === undefined) return inherited(name);
      if (assigned === "dynamic") return "dynamic";
      const definite = scope.definite.get(name);
      if (definite !== undefined && definite < at) return [...assigned];
      const base = inherited(name);
      return base === "dynamic" ? "dynamic" : [...new Set([...base, ...assigned])];
    };
    return new WordExpander(
      lookup,
      (reason, node) => this.problem(reason, node.text),
      this.home,
      () => (this.cwdUncertain ? undefined : this.context.cwd),
    );
  }

  /** First pass: what each variable and alias may hold anywhere in the line. */
  private collectAssignments(node: SyntaxNode, scope: Scope, expander: WordExpander): void {
    const assign = (name: string, values: readonly string[] | "dynamic") => {
      const prev = scope.assigned.get(name);
      if (prev === "dynamic" || values === "dynamic") scope.assigned.set(name, "dynamic");
      else scope.assigned.set(name, new Set([...(prev ?? []), ...values]));
    };
    const visit = (n: SyntaxNode) => {
      switch (n.type) {
        case "variable_assignment": {
          const parent = n.parent;
          // NAME=value before a command applies to that command only.
          if (parent?.type === "command") break;
          const nameNode = n.childForFieldName("name");
          const valueNode = n.childForFieldName("value");
          if (nameNode?.type !== "variable_name") {
            const inner = nameNode?.firstNamedChild?.text;
            if (inner) assign(inner, "dynamic");
            break;
          }
          const appending = n.children.some((c) => c?.type === "+=");
          const value = valueNode ? expander.single(valueNode) : "";
          if (value !== undefined && SUBSCRIPT_CODE.test(value))
            this.problem(`${nameNode.text} holds a subscript that runs a command when evaluated`, n.text);
          assign(nameNode.text, value === undefined || appending ? "dynamic" : [value]);
          const top =
            parent?.type === "program" ||
            (parent?.type === "declaration_command" && parent.parent?.type === "program");
          if (top && value !== undefined && !appending && !scope.definite.has(nameNode.text))
            scope.definite.set(nameNode.text, n.endIndex);
          break;
        }
        case "expansion": {
          // `${PAGER:=cmd}` assigns (and exports, under `set -a`) like `PAGER=cmd`.
          const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*):?=/.exec(n.text);
          if (m && DANGEROUS_VARIABLE.test(m[1] as string))
            this.problem(`\${${m[1]}:=…} sets ${m[1]}, which changes what later commands run`, n.text);
          break;
        }
        case "for_statement": {
          const variable = n.childForFieldName("variable");
          if (variable && DANGEROUS_VARIABLE.test(variable.text))
            this.problem(`the loop sets ${variable.text}, which changes what later commands run`, n.text);
          if (variable) {
            // Inside the body the variable is always set.
            if (!scope.definite.has(variable.text)) scope.definite.set(variable.text, n.startIndex);
            const values = n.childrenForFieldName("value").filter((c): c is SyntaxNode => c !== null);
            const words = values.flatMap((v) => expander.expand(v));
            assign(
              variable.text,
              values.length === 0 || words.some((w) => w.dynamic) ? "dynamic" : words.map((w) => w.text),
            );
          }
          break;
        }
        case "command": {
          const name = n.childForFieldName("name")?.text;
          const args = n.childrenForFieldName("argument").filter((c): c is SyntaxNode => c !== null);
          if (name === "read" || name === "mapfile" || name === "readarray" || name === "getopts") {
            for (const a of args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.text)) assign(a.text, "dynamic");
          } else if (name === "unset") {
            for (const a of args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.text)) assign(a.text, [""]);
          } else if (name === "cd" || name === "pushd" || name === "popd" || name === "chdir") {
            const operands = args.filter((a) => !/^-[LPe@]+$/.test(a.text));
            const target = operands.length === 1 ? expander.single(operands[0] as SyntaxNode) : undefined;
            const inside =
              name !== "popd" &&
              target !== undefined &&
              target !== "-" &&
              // Symlinks resolved: `cd link` may leave the directory however it is spelled.
              isInside(canonicalPath(this.context.cwd, "/"), canonicalPath(target, this.context.cwd));
            if (!inside) this.cwdUncertain = true;
          } else if (name === "eval" || name === "source" || name === ".") {
            // What they run may change directory too.
            this.cwdUncertain = true;
          } else if (name === "alias") {
            for (const a of args) {
              const text = expander.single(a);
              const m = text === undefined ? undefined : /^([^=\s]+)=(.*)$/s.exec(text);
              if (m) scope.aliases.set(m[1] as string, m[2] as string);
            }
          }
          break;
        }
      }
      for (const child of n.namedChildren) if (child) visit(child);
    };
    visit(node);
  }

  private walk(node: SyntaxNode, ctx: WalkContext, scope: Scope, expander: WordExpander): void {
    if (this.commands.length > MAX_COMMANDS) {
      this.problem("too many commands to judge", node.text.slice(0, 80));
      return;
    }
    if (node.isError || node.isMissing) {
      this.problem("the shell syntax could not be parsed", node.text);
    }
    switch (node.type) {
      case "command":
        this.command(node, [], ctx, scope, expander);
        return;
      case "redirected_statement":
        this.redirected(node, ctx, scope, expander);
        return;
      case "pipeline": {
        const pipeline = this.nextPipeline();
        let position = 0;
        for (const child of node.namedChildren) {
          if (child) this.walk(child, { ...ctx, pipeline, position: position++ }, scope, expander);
        }
        return;
      }
      case "variable_assignment":
        this.assignmentStatement(node, ctx, scope, expander);
        return;
      case "declaration_command":
      case "unset_command":
        this.declaration(node, ctx, scope, expander);
        return;
      case "function_definition": {
        const name = node.childForFieldName("name")?.text ?? "";
        const body = node.childForFieldName("body");
        const calls = body ? descendants(body, "command_name").map((c) => c.text) : [];
        this.functions.push({
          name,
          recursive: calls.includes(name),
          spawns: body ? /[|&]/.test(body.text) : false,
        });
        break;
      }
      case "test_command":
        if (descendants(node, "test_operator").some((op) => op.text === "-v" || op.text === "-R"))
          this.problem("`-v` tests evaluate array subscripts, which can run commands", node.text);
        // `[[ 'a[$(cmd)]' -eq 1 ]]`: arithmetic comparison evaluates the quoted subscript.
        if (SUBSCRIPT_CODE.test(node.text))
          this.problem("the test evaluates an array subscript that runs a command", node.text);
        break;
      case "command_substitution":
      case "process_substitution": {
        // `>(cmd)` reads what the outer command writes: its standard input comes from a command.
        const fed = node.type === "process_substitution" && node.text.startsWith(">(");
        for (const child of node.namedChildren) {
          if (child)
            this.walk(child, { ...ctx, pipeline: this.nextPipeline(), position: 0, fed }, scope, expander);
        }
        return;
      }
      case "file_redirect":
      case "herestring_redirect":
      case "heredoc_redirect": {
        // A redirection with no command of its own, as in `$(< file)`.
        const after: SyntaxNode[] = [];
        const redirects = this.redirect(node, ctx, scope, expander, after);
        if (redirects.length > 0) this.emit([], [], redirects, ctx);
        for (const rest of after) this.walk(rest, ctx, scope, expander);
        return;
      }
    }
    for (const child of node.namedChildren) if (child) this.walk(child, ctx, scope, expander);
  }

  private assignmentStatement(
    node: SyntaxNode,
    ctx: WalkContext,
    scope: Scope,
    expander: WordExpander,
  ): void {
    const name = node.childForFieldName("name")?.text ?? node.text;
    if (DANGEROUS_VARIABLE.test(name))
      this.problem(`setting ${name} changes what later commands run`, node.text);
    for (const child of node.namedChildren) if (child) this.walk(child, ctx, scope, expander);
  }

  private declaration(node: SyntaxNode, ctx: WalkContext, scope: Scope, expander: WordExpander): void {
    const keyword = node.child(0)?.text ?? "declare";
    const words: Word[] = [{ text: keyword, dynamic: false, glob: false }];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        this.assignmentStatement(child, ctx, scope, expander);
        const name = child.childForFieldName("name")?.text ?? "";
        const value = child.childForFieldName("value");
        words.push({
          text: `${name}=${value ? (expander.single(value) ?? value.text) : ""}`,
          dynamic: false,
          glob: false,
        });
      } else {
        for (const w of expander.expand(child)) {
          if (w.dynamic) this.problem(`${keyword} with an argument that is not static`, node.text);
          if (SUBSCRIPT_CODE.test(w.text))
            this.problem(`${keyword} evaluates an array subscript that runs a command`, node.text);
          if (keyword !== "export" && keyword !== "unset" && /^-[a-zA-Z]*n/.test(w.text))
            this.problem(`${keyword} -n makes a name refer to another variable`, node.text);
          words.push(w);
        }
        this.walk(child, ctx, scope, expander);
      }
    }
    this.emit(words, [], [], ctx);
  }

  private redirected(node: SyntaxNode, ctx: WalkContext, scope: Scope, expander: WordExpander): void {
    const body = node.childForFieldName("body");
    const redirects: Redirect[] = [];
    const after: SyntaxNode[] = [];
    for (const child of node.namedChildren) {
      if (!child || child.id === body?.id) continue;
      redirects.push(...this.redirect(child, ctx, scope, expander, after));
    }
    // The grammar hangs `a && b > f` and `a | b > f` on the whole list; bash gives it to `b`.
    let tail = body;
    while (tail && (tail.type === "list" || tail.type === "pipeline")) tail = tail.lastNamedChild;
    if (body && tail?.type === "command") {
      this.tailRedirects.set(tail.id, redirects);
      this.walk(body, ctx, scope, expander);
    } else {
      if (body) this.walk(body, ctx, scope, expander);
      if (redirects.length > 0) this.emit([], [], redirects, ctx);
    }
    // `cat <<EOF | sh`: the grammar hangs the rest of the pipeline on the here-doc.
    let position = ctx.position;
    for (const rest of after) {
      if (rest.type === "pipeline") {
        for (const stage of rest.namedChildren)
          if (stage) this.walk(stage, { ...ctx, position: ++position }, scope, expander);
      } else this.walk(rest, ctx, scope, expander);
    }
  }

  /** A redirect node: its target, and the commands inside it judged on the way. */
  private redirect(
    node: SyntaxNode,
    ctx: WalkContext,
    scope: Scope,
    expander: WordExpander,
    after: SyntaxNode[],
  ): Redirect[] {
    switch (node.type) {
      case "file_redirect": {
        const op = node.children.find((c) => c && !c.isNamed)?.text ?? ">";
        const destination = node.childForFieldName("destination") ?? node.namedChildren.at(-1);
        if (!destination) return [];
        this.walk(destination, ctx, scope, expander);
        const targets = expander.expand(destination);
        if (targets.some((t) => t.dynamic)) return [{ op, dynamic: true }];
        // `2>&1`, `>&-`: a descriptor, not a file.
        if ((op === ">&" || op === "<&") && targets.every((t) => /^(\d+-?|-)$/.test(t.text)))
          return [{ op, dynamic: false }];
        // Several possible targets (`> f$i` in a loop over known values): each is judged.
        return targets.map((t) => ({ op, target: t.text, dynamic: false }));
      }
      case "heredoc_redirect": {
        let body = "";
        let start = "";
        for (const child of node.namedChildren) {
          if (!child) continue;
          if (child.type === "heredoc_body") {
            body = child.text;
            this.walk(child, ctx, scope, expander);
          } else if (child.type === "heredoc_start") start = child.text;
          else if (child.type !== "heredoc_end" && child.type !== "heredoc_content") after.push(child);
        }
        if (!/['"\\]/.test(start) && /[`$]/.test(body)) {
          // The grammar does not read every substitution in a here-doc (backquotes, `<<-`): the
          // body is read again as the double-quoted string it behaves like.
          this.parseSource(
            `: "${body.replaceAll('"', '\\"')}"`,
            { ...ctx, depth: ctx.depth + 1, wrappers: [...ctx.wrappers, "here-doc"] },
            scope,
          );
          return [{ op: "<<", dynamic: false }];
        }
        return [{ op: "<<", dynamic: false, body }];
      }
      case "herestring_redirect": {
        let body: string | undefined;
        for (const child of node.namedChildren) {
          if (!child) continue;
          this.walk(child, ctx, scope, expander);
          body = expander.single(child);
        }
        return [body === undefined ? { op: "<<<", dynamic: false } : { op: "<<<", dynamic: false, body }];
      }
      default:
        this.walk(node, ctx, scope, expander);
        return [];
    }
  }

  private command(
    node: SyntaxNode,
    outerRedirects: readonly Redirect[],
    ctx: WalkContext,
    scope: Scope,
    expander: WordExpander,
  ): void {
    const id = this.newId();
    const inner: WalkContext = { ...ctx, within: id };
    const assignments: Assignment[] = [];
    const redirects: Redirect[] = [...outerRedirects, ...(this.tailRedirects.get(node.id) ?? [])];
    this.tailRedirects.delete(node.id);
    const words: Word[] = [];
    const after: SyntaxNode[] = [];
    let nameNode: SyntaxNode | undefined;
    // Arguments with no space between them are one word to bash, however the grammar split them.
    let pending: SyntaxNode[] = [];
    const flush = () => {
      if (pending.length > 0) words.push(...expander.expandMany(pending));
      pending = [];
    };
    for (const child of node.namedChildren) {
      if (!child) continue;
      const last = pending.at(-1);
      if (
        last &&
        (child.startIndex !== last.endIndex ||
          child.type.endsWith("redirect") ||
          child.type === "variable_assignment")
      )
        flush();
      if (child.type === "variable_assignment") {
        const name = child.childForFieldName("name")?.text ?? child.text;
        const value = child.childForFieldName("value");
        for (const part of child.namedChildren) if (part) this.walk(part, inner, scope, expander);
        const v = value ? expander.single(value) : "";
        assignments.push(v === undefined ? { name } : { name, value: v });
      } else if (
        child.type === "file_redirect" ||
        child.type === "herestring_redirect" ||
        child.type === "heredoc_redirect"
      ) {
        redirects.push(...this.redirect(child, inner, scope, expander, after));
      } else if (child.type === "command_name") {
        nameNode = child;
        this.walk(child, inner, scope, expander);
        pending.push(child.firstNamedChild ?? child);
      } else {
        this.walk(child, inner, scope, expander);
        pending.push(child);
      }
    }
    flush();
    for (const rest of after) this.walk(rest, ctx, scope, expander);
    if (!nameNode) {
      if (redirects.length > 0 || assignments.length > 0) this.emit([], assignments, redirects, ctx, id);
      return;
    }
    this.resolve(words, assignments, redirects, ctx, scope, id, node.text);
  }

  /** Sees through aliases, wrappers and command-running commands, then records the command. */
  private resolve(
    words: readonly Word[],
    assignments: readonly Assignment[],
    inputRedirects: readonly Redirect[],
    ctx: WalkContext,
    scope: Scope,
    id: number,
    source: string,
  ): void {
    let redirects = inputRedirects;
    if (ctx.wrappers.length > 0) {
      // `time X=1 cmd`: assignments may follow a wrapper keyword.
      const peeled = [...assignments];
      let k = 0;
      for (; k < words.length; k++) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec((words[k] as Word).text);
        if (!m) break;
        peeled.push(
          (words[k] as Word).dynamic
            ? { name: m[1] as string }
            : { name: m[1] as string, value: m[2] as string },
        );
      }
      if (k > 0) {
        this.resolve(
          words.slice(k),
          peeled,
          redirects,
          { ...ctx, wrappers: ctx.wrappers },
          scope,
          id,
          source,
        );
        return;
      }
    }
    for (const a of assignments) {
      if (DANGEROUS_VARIABLE.test(a.name))
        this.problem(`setting ${a.name} changes what the command runs`, source);
    }
    const first = words[0];
    if (!first) {
      this.emit([], assignments, redirects, ctx, id);
      return;
    }
    if (first.dynamic || first.text === "" || first.glob) {
      this.problem(`the command name ${first.text || "''"} is not known before the line runs`, source);
      this.emit(words, assignments, redirects, ctx, id);
      return;
    }
    const program = programName(first.text);
    if (EVALUATING_BUILTINS.has(program) && words.some((w) => SUBSCRIPT_CODE.test(w.text)))
      this.problem(`${program} evaluates an array subscript that runs a command`, source);
    const alias = scope.aliases.get(first.text);
    if (alias !== undefined && ctx.depth < MAX_DEPTH) {
      this.parseSource(
        [alias, ...words.slice(1).map((w) => shellQuote(w.text))].join(" "),
        { ...ctx, depth: ctx.depth + 1, wrappers: [...ctx.wrappers, `alias ${first.text}`] },
        scope,
      );
      return;
    }
    const nested = (script: string | undefined, how: string, extra?: Partial<WalkContext>) => {
      if (script === undefined) {
        this.problem(`${how} runs a script that is not known before the line runs`, source);
        this.emit(words, assignments, redirects, ctx, id);
        return;
      }
      // The shell or eval itself only passes the script on; its redirections still count.
      if (redirects.length > 0 || assignments.length > 0) this.emit([], assignments, redirects, ctx, id);
      this.parseSource(
        script,
        { ...ctx, depth: ctx.depth + 1, wrappers: [...ctx.wrappers, how], ...extra },
        scope,
      );
    };
    const staticText = (list: readonly Word[]) =>
      list.some((w) => w.dynamic) ? undefined : list.map((w) => w.text).join(" ");

    const wrapper = WRAPPERS[program];
    if (wrapper) {
      const rest = skipOptions(words.slice(1), wrapper.values, wrapper.operands ?? 0);
      const written = wrapperWrites(program, words.slice(1));
      if (written !== undefined)
        redirects = [
          ...redirects,
          written.dynamic ? { op: ">>", dynamic: true } : { op: ">>", target: written.text, dynamic: false },
        ];
      if (program === "flock" && rest.some((w) => w.text === "-c")) {
        const at = rest.findIndex((w) => w.text === "-c");
        nested(staticText(rest.slice(at + 1, at + 2)), "flock -c");
        return;
      }
      if (rest.length > 0) {
        this.resolve(
          rest,
          assignments,
          redirects,
          {
            ...ctx,
            wrappers: [...ctx.wrappers, program],
            elevated: ctx.elevated || wrapper.elevates === true,
          },
          scope,
          id,
          source,
        );
        return;
      }
      if (
        wrapper.elevates &&
        words
          .slice(1)
          .some((w) => /^-[a-zA-Z]*[si]/.test(w.text) || w.text === "--shell" || w.text === "--login")
      ) {
        this.emit(
          [{ text: "sh", dynamic: false, glob: false }],
          assignments,
          redirects,
          { ...ctx, elevated: true },
          id,
        );
        return;
      }
    }
    if (program === "command" && words[1] && !/^-[a-zA-Z]*[vV]/.test(words[1].text)) {
      const rest = skipOptions(words.slice(1), [], 0);
      if (rest.length > 0) {
        this.resolve(
          rest,
          assignments,
          redirects,
          { ...ctx, wrappers: [...ctx.wrappers, "command"] },
          scope,
          id,
          source,
        );
        return;
      }
    }
    if (program === "env") {
      this.env(words, assignments, redirects, ctx, scope, id, source, nested);
      return;
    }
    if (program === "su") {
      const at = words.findIndex((w) => w.text === "-c" || w.text === "--command");
      if (at > 0) {
        nested(staticText(words.slice(at + 1, at + 2)), "su -c", { elevated: true });
        return;
      }
      this.emit(
        [{ text: "sh", dynamic: false, glob: false }],
        assignments,
        redirects,
        { ...ctx, elevated: true },
        id,
      );
      return;
    }
    if (SHELLS.has(program)) {
      const shell = shellInvocation(words.slice(1));
      if (shell.command) {
        nested(staticText(shell.command), `${program} -c`);
        return;
      }
      // `sh <<EOF … EOF`, `bash <<< '…'`: the script is the here-doc.
      const input = redirects.find((r) => r.op === "<<" || r.op === "<<<");
      if (input && !shell.script) {
        nested(input.body, `${program} <<`);
        return;
      }
    }
    if (program === "eval") {
      nested(staticText(words.slice(1)), "eval");
      return;
    }
    if (program === "trap" && words[1] && !words[1].text.startsWith("-")) {
      nested(staticText(words.slice(1, 2)), "trap");
      return;
    }
    if (program === "watch") {
      const rest = skipOptions(
        words.slice(1),
        ["-n", "--interval", "-d", "--differences", "-q", "--equexit", "-g"],
        0,
      );
      if (rest.length > 0) {
        nested(staticText(rest), "watch");
        return;
      }
    }
    if (program === "xargs") {
      this.xargs(words, assignments, redirects, ctx, scope, id, source);
      return;
    }
    if (program === "parallel") {
      // GNU parallel runs its command (joined, through a shell) once per input: like xargs.
      const values =
        /^(-[jnNlLSdaICEX]|--(jobs|max-args|sshlogin|delimiter|arg-file|colsep|tmpdir|joblog|results|max-replace-args|timeout|delay|memfree|load))$/;
      let k = 1;
      for (; k < words.length; k++) {
        const t = (words[k] as Word).text;
        if (t === "--") {
          k++;
          break;
        }
        if (!t.startsWith("-") || t === "-") break;
        if (values.test(t)) k++;
      }
      const end = words.findIndex((w, j) => j >= k && /^:::[:+]*$/.test(w.text));
      const inner = words.slice(k, end < 0 ? undefined : end);
      this.emit(words.slice(0, k), assignments, redirects, ctx, id);
      if (inner.length === 0) {
        this.problem("parallel runs commands read from its input", source);
        return;
      }
      nested(
        staticText(inner.map((w) => (/\{[^}]*\}/.test(w.text) ? { ...w, dynamic: false } : w))),
        "parallel",
        { moreArgs: true },
      );
      return;
    }
    if (program === "find") this.findExec(words, ctx, scope, source);
    this.emit(words, assignments, redirects, ctx, id);
  }

  private env(
    words: readonly Word[],
    assignments: readonly Assignment[],
    redirects: readonly Redirect[],
    ctx: WalkContext,
    scope: Scope,
    id: number,
    source: string,
    nested: (script: string | undefined, how: string) => void,
  ): void {
    const all = [...assignments];
    let i = 1;
    const table = programOptions("env") as ProgramOptions;
    for (; i < words.length; i++) {
      const w = words[i] as Word;
      if (w.text === "--") {
        i++;
        break;
      }
      if (!w.text.startsWith("-") || w.text === "-") break;
      // The option as env's getopt_long reads it: `--spl=…` is `--split-string=…`, `-iS'…'` is `-i -S '…'`.
      const { options } = parseOptions(table, [w, ...(words[i + 1] ? [words[i + 1] as Word] : [])]);
      const usesNext = options.some((o) => o.valueWord !== undefined && o.valueWord === words[i + 1]);
      const split = options.find((o) => o.spec.name === "--split-string" || o.spec.name === "-S");
      if (split) {
        const script =
          split.valueWord === undefined || split.valueWord.dynamic ? undefined : split.valueWord.text;
        nested(
          script === undefined
            ? undefined
            : [script, ...words.slice(i + (usesNext ? 2 : 1)).map((x) => shellQuote(x.text))].join(" "),
          "env -S",
        );
        return;
      }
      if (options.some((o) => o.spec.name === "--chdir" || o.spec.name === "-C"))
        this.problem("env -C runs the command in another directory", source);
      if (usesNext) i++;
    }
    for (; i < words.length; i++) {
      const w = words[i] as Word;
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(w.text);
      if (m) {
        all.push(w.dynamic ? { name: m[1] as string } : { name: m[1] as string, value: m[2] as string });
        continue;
      }
      if (w.dynamic && w.text.includes("=")) {
        this.problem("env with an assignment that is not static", source);
        continue;
      }
      break;
    }
    const rest = words.slice(i);
    if (rest.length === 0) {
      this.emit(words, all, redirects, ctx, id);
      return;
    }
    this.resolve(rest, all, redirects, { ...ctx, wrappers: [...ctx.wrappers, "env"] }, scope, id, source);
  }

  private xargs(
    words: readonly Word[],
    assignments: readonly Assignment[],
    redirects: readonly Redirect[],
    ctx: WalkContext,
    scope: Scope,
    id: number,
    source: string,
  ): void {
    const values = [
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-I",
      "-L",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var",
    ];
    let replace: string | undefined;
    let i = 1;
    for (; i < words.length; i++) {
      const t = (words[i] as Word).text;
      if (t === "--") {
        i++;
        break;
      }
      if (!t.startsWith("-") || t === "-") break;
      if (t === "-I") replace = words[i + 1]?.text;
      else if (/^-I./.test(t)) replace = t.slice(2);
      else if (/^-i/.test(t) || t.startsWith("--replace"))
        replace = t.replace(/^(-i|--replace=?)/, "") || "{}";
      if (values.includes(t)) i++;
    }
    const inner = words
      .slice(i)
      .map((w) => (replace !== undefined && w.text.includes(replace) ? { ...w, dynamic: true } : w));
    const command = inner.length > 0 ? inner : [{ text: "echo", dynamic: false, glob: false }];
    this.emit(words.slice(0, i), assignments, redirects, ctx, id);
    this.resolve(
      command,
      [],
      [],
      { ...ctx, depth: ctx.depth + 1, wrappers: [...ctx.wrappers, "xargs"], moreArgs: true },
      scope,
      this.newId(),
      source,
    );
  }

  /** `find … -exec CMD {} ;`: CMD is a command of its own, `{}` standing for what find finds. */
  private findExec(words: readonly Word[], ctx: WalkContext, scope: Scope, source: string): void {
    const starts: Word[] = [];
    let i = 1;
    for (; i < words.length; i++) {
      const t = (words[i] as Word).text;
      if (t.startsWith("-") || t === "(" || t === "!") break;
      starts.push(words[i] as Word);
    }
    if (starts.length === 0) starts.push({ text: ".", dynamic: false, glob: false });
    const testsFrom = i;
    for (; i < words.length; i++) {
      const t = (words[i] as Word).text;
      if (!FIND_ACTIONS_WITH_COMMAND.has(t)) continue;
      // Only tests before the action narrow what it acts on.
      const filtered = findNarrows(words.slice(testsFrom, i).map((w) => w.text));
      const inner: Word[] = [];
      let j = i + 1;
      for (; j < words.length; j++) {
        const w = words[j] as Word;
        if (w.text === ";" || (w.text === "+" && words[j - 1]?.text === "{}")) break;
        if (w.text.includes("{}")) {
          // `{}` is what find finds: the start itself when nothing filters, else something below it.
          // Outside the starting directory a filter (`-type d` under ~) is no comfort.
          for (const s of starts) {
            const narrowed =
              filtered && !s.dynamic && isInside(this.context.cwd, resolve(this.context.cwd, s.text));
            inner.push({
              ...s,
              text: w.text.replaceAll("{}", narrowed ? `${s.text.replace(/\/$/, "")}/{found}` : s.text),
            });
          }
        } else inner.push(w);
      }
      if (inner.length > 0)
        this.resolve(
          inner,
          [],
          [],
          { ...ctx, depth: ctx.depth + 1, wrappers: [...ctx.wrappers, `find ${t}`] },
          scope,
          this.newId(),
          source,
        );
      i = j;
    }
  }

  private emit(
    words: readonly Word[],
    assignments: readonly Assignment[],
    redirects: readonly Redirect[],
    ctx: WalkContext,
    id: number = this.newId(),
  ): void {
    const argv = words.map((w) => w.text);
    this.commands.push({
      id,
      argv,
      words,
      assignments,
      redirects,
      wrappers: ctx.wrappers,
      elevated: ctx.elevated,
      moreArgs: ctx.moreArgs === true,
      fedByCommand: ctx.position > 0 || ctx.fed === true,
      cwdKnown: !this.cwdUncertain,
      pipeline: ctx.pipeline,
      position: ctx.position,
      ...(ctx.within !== undefined && ctx.within !== id && { within: ctx.within }),
      depth: ctx.depth,
      text: argv.join(" "),
    });
  }
}

/**
 * The file a wrapper itself writes: GNU time's `-o FILE` (`--output`, any unique prefix), flock's
 * lock file (created when missing). Undefined for the others.
 */
function wrapperWrites(program: string, args: readonly Word[]): Word | undefined {
  if (program === "flock") return args.find((w) => !w.text.startsWith("-"));
  if (program !== "time") return undefined;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as Word;
    if (!w.text.startsWith("-")) return undefined;
    const long = /^--(o|ou|out|outp|outpu|output)(=(.*))?$/s.exec(w.text);
    if (long) return long[2] !== undefined ? { ...w, text: long[3] as string } : args[i + 1];
    const short = /^-[a-zA-Z]*o(.*)$/s.exec(w.text);
    if (short && !w.text.startsWith("--")) return short[1] ? { ...w, text: short[1] } : args[i + 1];
  }
  return undefined;
}

function descendants(node: SyntaxNode, type: string): SyntaxNode[] {
  return node.descendantsOfType(type).filter((n): n is SyntaxNode => n !== null);
}
