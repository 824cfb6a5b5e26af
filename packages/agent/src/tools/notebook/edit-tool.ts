import { type Static, Type } from "@sinclair/typebox";
import type { RegisteredTool, ToolOutput } from "../../types/tool.js";
import { defineBuiltinTool, StringEnum } from "../define-tool.js";
import { ArgumentError, ToolError } from "../shared/tool-errors.js";
import {
  type Notebook,
  type NotebookCell,
  needsCellIds,
  newCellId,
  parseNotebook,
  serializeNotebook,
  splitLines,
} from "./notebook-format.js";

const parameters = Type.Object(
  {
    notebook_path: Type.String({ minLength: 1, description: "Path of the .ipynb file." }),
    cell_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The id of the cell to act on (as read_file shows: id=...).",
      }),
    ),
    cell_number: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "The 1-based number of the cell to act on, when it has no id.",
      }),
    ),
    new_source: Type.Optional(Type.String({ description: "The cell's new source (replace and insert)." })),
    cell_type: Type.Optional(
      StringEnum(["code", "markdown", "raw"] as const, {
        description: "The cell's type: required to insert; to replace, changes it (default: unchanged).",
      }),
    ),
    edit_mode: Type.Optional(
      StringEnum(["replace", "insert", "delete"] as const, {
        description:
          "replace (default) the cell's source; insert a new cell after the given cell (at the start when none is given); delete the cell.",
      }),
    ),
  },
  { additionalProperties: false },
);
type NotebookEditArgs = Static<typeof parameters>;

/** The cell a call names, by id or number; undefined when it names none. Throws ToolError when not found. */
function findCell(nb: Notebook, args: NotebookEditArgs): number | undefined {
  if (args.cell_id !== undefined && args.cell_number !== undefined)
    throw new ArgumentError("Give cell_id or cell_number, not both.", "cell_id");
  if (args.cell_id !== undefined) {
    const at = nb.cells.findIndex((c) => c.id === args.cell_id);
    if (at >= 0) return at;
    // A number given as an id ("3") names the cell of that number when no cell has that id.
    if (/^\d+$/.test(args.cell_id) && Number(args.cell_id) >= 1 && Number(args.cell_id) <= nb.cells.length)
      return Number(args.cell_id) - 1;
    throw new ToolError("cell_not_found", `No cell with id ${JSON.stringify(args.cell_id)} in the notebook.`);
  }
  if (args.cell_number !== undefined) {
    if (args.cell_number > nb.cells.length)
      throw new ToolError(
        "cell_not_found",
        `The notebook has ${nb.cells.length} cells; there is no cell ${args.cell_number}.`,
      );
    return args.cell_number - 1;
  }
  return undefined;
}

/** A cell of `type` with `source`, carrying over what a cell of that type keeps (metadata, id, attachments). */
function makeCell(nb: Notebook, type: string, source: string, from?: NotebookCell): NotebookCell {
  const id = from?.id ?? (needsCellIds(nb) ? newCellId(nb) : undefined);
  const base = {
    ...(id !== undefined && { id }),
    cell_type: type,
    metadata: from?.metadata ?? {},
    source: splitLines(source),
  };
  if (type === "code") return { ...base, execution_count: null, outputs: [] };
  // Markdown and raw cells may keep their attachments; they have no outputs.
  const attachments = from?.cell_type === type ? from.attachments : undefined;
  return attachments !== undefined ? { ...base, attachments } : base;
}

/**
 * The `notebook_edit` tool: replaces, inserts or deletes one cell of a Jupyter notebook (by id or
 * number) and writes the notebook back valid for nbformat 4: new cells get ids where 4.5 needs
 * them, code cells get empty outputs, and a replaced code cell's stale outputs are cleared.
 */
export function notebookEditTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "notebook_edit",
    description:
      "Edit a Jupyter notebook (.ipynb) cell: replace its source (optionally changing its type), insert a new cell after it, or delete it. Name the cell by cell_id (as read_file shows) or cell_number. A replaced code cell's outputs are cleared. Use read_file to see the notebook first.",
    parameters,
    targets: (args) => [args.notebook_path],
    execute: async (args, { environment: env }): Promise<ToolOutput> => {
      const path = args.notebook_path;
      if (!/\.ipynb$/i.test(path)) throw new ArgumentError(`${path} is not a .ipynb file.`, "notebook_path");
      const nb = parseNotebook(await env.readFile(path), path);
      const mode = args.edit_mode ?? "replace";
      const at = findCell(nb, args);
      const cells = [...nb.cells];
      let summary: string;
      if (mode === "delete") {
        if (at === undefined)
          throw new ArgumentError("Name the cell to delete (cell_id or cell_number).", "cell_id");
        const [gone] = cells.splice(at, 1);
        summary = `Deleted cell ${at + 1} (${gone?.cell_type}${gone?.id ? `, id ${gone.id}` : ""}); ${cells.length} cells remain.`;
      } else if (mode === "insert") {
        if (args.new_source === undefined) throw new ArgumentError("insert needs new_source.", "new_source");
        if (args.cell_type === undefined) throw new ArgumentError("insert needs cell_type.", "cell_type");
        const cell = makeCell({ ...nb, cells }, args.cell_type, args.new_source);
        const position = at === undefined ? 0 : at + 1;
        cells.splice(position, 0, cell);
        summary = `Inserted a ${args.cell_type} cell as cell ${position + 1}${cell.id ? ` (id ${cell.id})` : ""}.`;
      } else {
        if (at === undefined)
          throw new ArgumentError("Name the cell to replace (cell_id or cell_number).", "cell_id");
        if (args.new_source === undefined) throw new ArgumentError("replace needs new_source.", "new_source");
        const old = cells[at] as NotebookCell;
        const type = args.cell_type ?? old.cell_type;
        cells[at] = makeCell(nb, type, args.new_source, old);
        const cleared =
          old.cell_type === "code" && (old.outputs?.length ?? 0) > 0 ? "; its outputs were cleared" : "";
        summary = `Replaced cell ${at + 1}${old.id ? ` (id ${old.id})` : ""}${type !== old.cell_type ? `, now a ${type} cell` : ""}${cleared}.`;
      }
      await env.writeFile(path, serializeNotebook({ ...nb, cells }));
      return { output: `${summary} Wrote ${path}.`, details: { path, cellCount: cells.length } };
    },
  });
}
