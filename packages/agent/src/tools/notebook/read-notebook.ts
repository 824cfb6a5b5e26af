import type { ExecutionEnvironment } from "../../types/environment.js";
import type { ToolOutput } from "../../types/tool.js";
import { parseNotebook } from "./notebook-format.js";
import { renderNotebook } from "./render.js";

/** Whether read_file should read a path as a notebook. */
export const isNotebookPath = (path: string): boolean => /\.ipynb$/i.test(path);

/**
 * read_file on a notebook: its cells `offset`..`offset + limit - 1` (1-based, all by default) with
 * their outputs as text; the first image output comes as the result's image, and the others are
 * named with the cell to read alone to see them.
 */
export async function readNotebook(
  env: ExecutionEnvironment,
  path: string,
  offset = 1,
  limit = Number.MAX_SAFE_INTEGER,
): Promise<ToolOutput> {
  const nb = parseNotebook(await env.readFile(path), path);
  if (offset > Math.max(nb.cells.length, 1))
    return {
      output: `offset ${offset} is past the last cell of ${path} (${nb.cells.length} cells).`,
      isError: true,
    };
  const rendered = renderNotebook(nb, offset, limit);
  const [first, ...rest] = rendered.images;
  const note =
    rest.length > 0
      ? `\n\n[The image of cell ${first?.cell} is attached; ${rest.length} more image output(s) in cell(s) ${[...new Set(rest.map((r) => r.cell))].join(", ")}: read one cell at a time (offset = its number, limit 1) to see them.]`
      : "";
  return {
    output: rendered.text + note,
    ...(first !== undefined && { image: first.image }),
    details: { path, cellCount: nb.cells.length, cellsShown: rendered.cellsShown },
  };
}
