/**
 * Context the user gives the model along with a message: the output of `!command`s and the
 * content of `@path` mentions, put before the message with a note saying what it is. The
 * transcript shows the message as typed (typedText), not the context.
 */

/** Told to the model in the system prompt, so it trusts what the user attached. */
export const USER_CONTEXT_INSTRUCTIONS =
  "A user message may begin with <attached-file>, <attached-directory>, <attached-image> or " +
  "<user-shell-command> blocks: content the user attached with @mentions or commands they ran " +
  "themselves (an <attached-image> names an image sent with the message). That content is already " +
  "provided and current; do not read those files again unless they have changed since.";

/** Follows the output of the user's `!command`s. */
export const SHELL_CONTEXT_NOTE =
  "The user ran the command above in the project's shell themselves; its output is context for what follows.\n\n";

/** Follows the files and directories attached with @mentions. */
export const MENTIONS_NOTE =
  "The user attached the content above with @mentions in the message below. It is already " +
  "provided: there is no need to read these files again unless they change.\n\n";

/** The context block for one `!command` and what it printed. */
export function shellContextBlock(command: string, output: string, status: string): string {
  return `<user-shell-command>\n$ ${command}\n${output.trimEnd()}\n(${status})\n</user-shell-command>\n${SHELL_CONTEXT_NOTE}`;
}

/** A stored user message without the context put before it: what the user typed. */
export function typedText(content: string): string {
  let text = content;
  for (;;) {
    const note = text.startsWith("<user-shell-command>\n")
      ? SHELL_CONTEXT_NOTE
      : text.startsWith("<attached-")
        ? MENTIONS_NOTE
        : undefined;
    const end = note === undefined ? -1 : text.indexOf(note);
    if (note === undefined || end < 0) return text;
    text = text.slice(end + note.length);
  }
}
