/**
 * Syntax highlighting of code blocks through highlight.js's grammars (via emphasize, which turns
 * them into terminal colours). The grammars are loaded in the background once the UI is up, so
 * they cost the first frame nothing; a code block printed before they are ready is shown plain.
 */

type Highlighter = (code: string, language: string) => string | undefined;

let highlighter: Highlighter | undefined;
let loading: Promise<void> | undefined;

/** Starts loading the grammars of common languages (once); resolves when they are ready or failed. */
export function loadHighlighter(): Promise<void> {
  // NO_COLOR (no-color.org) asks for no colours at all: the code stays plain.
  if (process.env.NO_COLOR) return Promise.resolve();
  loading ??= import("emphasize")
    .then(({ createEmphasize, common }) => {
      const emphasize = createEmphasize(common);
      highlighter = (code, language) =>
        emphasize.registered(language) ? emphasize.highlight(language, code).value : undefined;
    })
    .catch(() => undefined);
  return loading;
}

/** The code in terminal colours for its language; undefined when the language is unknown or not loaded. */
export function highlightCode(code: string, language: string | undefined): string | undefined {
  const name = language?.trim().split(/\s+/)[0]?.toLowerCase();
  if (!name || !highlighter) return undefined;
  try {
    return highlighter(code, name);
  } catch {
    // A grammar failing on odd input must not take the answer down with it.
    return undefined;
  }
}
