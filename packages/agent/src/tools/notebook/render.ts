import { stripVTControlCharacters } from "node:util";
import type { ImageData } from "@attractor/llm";
import { joinText, type Notebook, type NotebookCell, type NotebookOutput } from "./notebook-format.js";

/** A notebook as the model reads it: cells with their outputs as text, and the images found. */
export interface RenderedNotebook {
  readonly text: string;
  readonly images: readonly { readonly cell: number; readonly image: ImageData }[];
  readonly cellsShown: number;
}

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
/** Characters of one output kept; long logs are cut in the middle. */
const MAX_OUTPUT_CHARS = 8_000;

function cut(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  const half = MAX_OUTPUT_CHARS / 2;
  return `${text.slice(0, half)}\n[… ${text.length - MAX_OUTPUT_CHARS} characters of output left out …]\n${text.slice(-half)}`;
}

function renderOutput(
  output: NotebookOutput,
  cellNumber: number,
  images: { cell: number; image: ImageData }[],
): string {
  switch (output.output_type) {
    case "stream":
      return `[${output.name ?? "stream"}]\n${cut(joinText(output.text)).replace(/\n$/, "")}`;
    case "error":
      // Terminal colour codes in tracebacks mean nothing to a model.
      return `[error] ${output.ename ?? "Error"}: ${output.evalue ?? ""}\n${cut(stripVTControlCharacters((output.traceback ?? []).join("\n")))}`;
    case "execute_result":
    case "display_data": {
      const data = output.data ?? {};
      const parts: string[] = [];
      for (const type of IMAGE_TYPES) {
        const value = data[type];
        if (typeof value === "string" || Array.isArray(value)) {
          images.push({
            cell: cellNumber,
            image: { data: joinText(value as string[]).replace(/\s+/g, ""), mediaType: type },
          });
          parts.push(`[image: ${type}]`);
          break;
        }
      }
      const text = data["text/markdown"] ?? data["text/plain"];
      if (text !== undefined) parts.push(cut(joinText(text as string[])));
      else if (parts.length === 0) parts.push(`[${Object.keys(data).join(", ") || "empty"} output]`);
      return `[${output.output_type === "execute_result" ? "result" : "display"}]\n${parts.join("\n")}`;
    }
    default:
      return `[${output.output_type} output]`;
  }
}

function renderCell(cell: NotebookCell, index: number, images: { cell: number; image: ImageData }[]): string {
  const number = index + 1;
  const count =
    cell.cell_type === "code" && typeof cell.execution_count === "number"
      ? `, execution ${cell.execution_count}`
      : "";
  const id = cell.id !== undefined ? ` id=${cell.id}` : "";
  const lines = [`### Cell ${number} [${cell.cell_type}]${id}${count}`, joinText(cell.source)];
  const outputs = cell.outputs ?? [];
  if (outputs.length > 0) {
    lines.push("#### Output");
    for (const output of outputs) lines.push(renderOutput(output, number, images));
  }
  return lines.join("\n");
}

/** Renders cells `offset`..`offset + limit - 1` (1-based) with their outputs; images are collected. */
export function renderNotebook(nb: Notebook, offset: number, limit: number): RenderedNotebook {
  const images: { cell: number; image: ImageData }[] = [];
  const shown = nb.cells.slice(offset - 1, offset - 1 + limit);
  const language =
    ((nb.metadata.kernelspec as { language?: string } | undefined)?.language ??
      (nb.metadata.language_info as { name?: string } | undefined)?.name) ||
    "unknown";
  const header = `Jupyter notebook (nbformat ${nb.nbformat}.${nb.nbformat_minor}, ${language}), ${nb.cells.length} cells; showing ${shown.length === 0 ? "none" : `cells ${offset}-${offset + shown.length - 1}`}.`;
  const body = shown.map((cell, i) => renderCell(cell, offset - 1 + i, images));
  return { text: [header, ...body].join("\n\n"), images, cellsShown: shown.length };
}
