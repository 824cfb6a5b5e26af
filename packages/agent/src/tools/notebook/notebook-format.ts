import { randomBytes } from "node:crypto";
import { ToolError } from "../shared/tool-errors.js";

/** Multiline text as nbformat stores it: one string, or a list of lines each ending in "\n". */
export type MultilineString = string | readonly string[];

/** One output of a code cell (nbformat v4). */
export interface NotebookOutput {
  readonly output_type: "stream" | "display_data" | "execute_result" | "error" | string;
  readonly name?: string;
  readonly text?: MultilineString;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly ename?: string;
  readonly evalue?: string;
  readonly traceback?: readonly string[];
  readonly [key: string]: unknown;
}

export interface NotebookCell {
  readonly cell_type: "code" | "markdown" | "raw" | string;
  readonly id?: string;
  readonly source: MultilineString;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly outputs?: readonly NotebookOutput[];
  readonly execution_count?: number | null;
  readonly [key: string]: unknown;
}

export interface Notebook {
  readonly nbformat: number;
  readonly nbformat_minor: number;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly cells: readonly NotebookCell[];
}

/** A notebook file that is not an nbformat 4 notebook. */
export class NotebookFormatError extends ToolError {
  override readonly name = "NotebookFormatError";
  constructor(path: string, problem: string) {
    super("invalid_notebook", `${path} is not a notebook this tool can read: ${problem}`);
  }
}

/** Joins nbformat's multiline text. */
export function joinText(text: MultilineString | undefined): string {
  if (text === undefined) return "";
  return typeof text === "string" ? text : text.join("");
}

/** Splits text into nbformat's list of lines, each but the last ending in "\n" (as Jupyter saves). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((line) => `${line}\n`);
  const last = lines.length - 1;
  lines[last] = (lines[last] as string).slice(0, -1);
  return lines[last] === "" ? lines.slice(0, -1) : lines;
}

/** Parses a notebook's JSON, checking the structure the tools rely on. Throws NotebookFormatError. */
export function parseNotebook(text: string, path: string): Notebook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new NotebookFormatError(path, `its JSON does not parse (${(err as Error).message})`);
  }
  const nb = value as Partial<Notebook> | null;
  if (nb === null || typeof nb !== "object" || Array.isArray(nb))
    throw new NotebookFormatError(path, "not a JSON object");
  if (nb.nbformat !== 4)
    throw new NotebookFormatError(path, `nbformat ${String(nb.nbformat)} (only version 4 is supported)`);
  if (!Array.isArray(nb.cells)) throw new NotebookFormatError(path, "it has no cells list");
  for (const [i, cell] of nb.cells.entries()) {
    if (cell === null || typeof cell !== "object" || typeof cell.cell_type !== "string")
      throw new NotebookFormatError(path, `cell ${i + 1} has no cell_type`);
  }
  return nb as Notebook;
}

/** Whether the notebook's minor version requires cell ids (4.5 and later). */
export function needsCellIds(nb: Notebook): boolean {
  return (nb.nbformat_minor ?? 0) >= 5;
}

/** A new cell id: 8 hex characters, as nbformat's own generator makes, unique in the notebook. */
export function newCellId(nb: Notebook): string {
  const taken = new Set(nb.cells.map((c) => c.id));
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}

/** The notebook as Jupyter writes it: one-space indentation, keys as they were, a final newline. */
export function serializeNotebook(nb: Notebook): string {
  return `${JSON.stringify(nb, null, 1)}\n`;
}
