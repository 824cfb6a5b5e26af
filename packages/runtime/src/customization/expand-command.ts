/** A custom command that cannot be expanded (a `!` line refused or failed); nothing is sent. */
export class CommandExpansionError extends Error {
  override readonly name = "CommandExpansionError";
  constructor(
    readonly command: string,
    problem: string,
  ) {
    super(`/${command}: ${problem}`);
  }
}

/** What expanding a command body needs from the program. */
export interface ExpansionHost {
  /** A project file's text (relative paths from the project directory); rejects when unreadable. */
  readonly readFile: (path: string) => Promise<string>;
  /** Runs a `!` command after the permission check; resolves to its output, rejects when refused. */
  readonly runShell: (command: string) => Promise<string>;
}

/** Splits arguments like a shell would for $1…$9: whitespace-separated, quotes group words. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m !== null; m = re.exec(args)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3] ?? ""));
  }
  return out;
}

/** Largest file an @ include inlines. */
const MAX_INCLUDE_CHARS = 100_000;

/**
 * Expands a custom command's body: `$ARGUMENTS` and `$1`…`$9` (arguments appended when the body
 * uses neither), then each !`command` replaced by its output, then each `@path` of an existing
 * file followed by the file's contents at the end. Throws CommandExpansionError.
 */
export async function expandCommandBody(
  name: string,
  body: string,
  args: string,
  host: ExpansionHost,
): Promise<string> {
  const positional = splitArguments(args);
  const usesArgs = /\$ARGUMENTS|\$[1-9]/.test(body);
  let text = body
    .replace(/\$ARGUMENTS/g, () => args)
    .replace(/\$([1-9])/g, (_m, n: string) => positional[Number(n) - 1] ?? "");
  if (!usesArgs && args.trim() !== "") text = `${text.trimEnd()}\n\nARGUMENTS: ${args}`;

  const commands = [...text.matchAll(/!`([^`\n]+)`/g)];
  const outputs: string[] = [];
  for (const match of commands) {
    const command = (match[1] as string).trim();
    try {
      outputs.push((await host.runShell(command)).trimEnd());
    } catch (error) {
      throw new CommandExpansionError(
        name,
        `the command \`${command}\` did not run: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  let i = 0;
  text = text.replace(/!`([^`\n]+)`/g, () => outputs[i++] ?? "");

  const included: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(/(^|\s)@([^\s`'"()[\]{}<>,;]+[^\s`'"()[\]{}<>,;.:!?])/g)) {
    const path = match[2] as string;
    if (seen.has(path)) continue;
    seen.add(path);
    try {
      const content = await host.readFile(path);
      const shown =
        content.length > MAX_INCLUDE_CHARS ? `${content.slice(0, MAX_INCLUDE_CHARS)}\n[truncated]` : content;
      included.push(`Contents of ${path}:\n\`\`\`\n${shown.trimEnd()}\n\`\`\``);
    } catch {
      // Not a readable file (an e-mail address, a handle): left as written.
    }
  }
  return included.length > 0 ? `${text.trimEnd()}\n\n${included.join("\n\n")}` : text;
}
