/**
 * NO_COLOR (no-color.org): no colour escapes at all, whoever produces them (the renderer's
 * colours, the code highlighter, a tool's coloured output). Bold, dim and underline go too: in a
 * plain screen they mostly stood in for colour (a dimmed hint, a bold marker, an underlined
 * heading; a link's address is printed beside it). Inverse stays (the cursor, the selected item
 * of a list): without it the screen loses information.
 */

/**
 * True when the environment asks for no colour: NO_COLOR set and not empty, TERM=dumb or
 * FORCE_COLOR=0; any other FORCE_COLOR overrides the first two (as in Node).
 */
export function colourRefused(env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force === "0" || force === "false") return true;
  if (force !== undefined) return false;
  return (env.NO_COLOR ?? "") !== "" || env.TERM === "dumb";
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC
const SGR = /\x1b\[([0-9;:]*)m/g;

/** Reset, inverse and its end: all a colourless screen keeps. */
const KEPT = new Set([0, 7, 27]);

/** The SGR parameters of one sequence that a colourless screen keeps (see KEPT). */
function keptParameters(list: string): string[] {
  const params = list === "" ? ["0"] : list.split(";");
  const kept: string[] = [];
  for (let i = 0; i < params.length; i++) {
    const raw = params[i] ?? "";
    const code = Number(raw.split(":")[0]);
    if (code === 38 || code === 48 || code === 58) {
      // Extended colours carry their arguments as further parameters unless written with colons.
      if (!raw.includes(":")) i += params[i + 1] === "5" ? 2 : params[i + 1] === "2" ? 4 : 0;
      continue;
    }
    if (KEPT.has(code)) kept.push(raw);
  }
  return kept;
}

/** The text with every colour and weight taken out of its SGR sequences (a sequence left empty goes). */
export function stripColours(text: string): string {
  if (!text.includes("\x1b[")) return text;
  return text.replace(SGR, (_, list: string) => {
    const kept = keptParameters(list);
    return kept.length === 0 ? "" : `\x1b[${kept.join(";")}m`;
  });
}

/** Makes every later write to `stream` colourless (see stripColours). */
export function refuseColours(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === "string" ? stripColours(chunk) : chunk, ...rest)) as typeof stream.write;
}
