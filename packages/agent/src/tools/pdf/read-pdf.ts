import type { ToolOutput } from "../../types/tool.js";
import { extractPdfText } from "./pdf-text.js";

/** Pages read when a call names no limit. */
export const DEFAULT_PDF_PAGES = 50;

/**
 * A PDF's text for the model, pages `offset`..`offset + limit - 1` (1-based; the first 50 by
 * default), each under a page heading, with the page count so the model can ask for the rest.
 */
export async function readPdfText(
  data: Uint8Array,
  source: string,
  offset = 1,
  limit = DEFAULT_PDF_PAGES,
): Promise<ToolOutput> {
  const pdf = await extractPdfText(data, offset, offset + limit - 1);
  if (pdf.pages.length === 0)
    return {
      output: `offset ${offset} is past the last page of ${source} (${pdf.pageCount} pages).`,
      isError: true,
    };
  const firstShown = pdf.pages[0]?.number ?? offset;
  const lastShown = pdf.pages.at(-1)?.number ?? offset;
  const rest =
    lastShown < pdf.pageCount
      ? ` Pages ${lastShown + 1}-${pdf.pageCount} follow: read them with offset ${lastShown + 1}.`
      : "";
  const empty = pdf.pages.every((p) => p.text === "")
    ? "\n(No text was found on these pages: they may be scanned images.)"
    : "";
  const body = pdf.pages.map((p) => `--- Page ${p.number} ---\n${p.text}`).join("\n\n");
  return {
    output: `PDF ${source}, ${pdf.pageCount} page${pdf.pageCount === 1 ? "" : "s"}; text of pages ${firstShown}-${lastShown}.${rest}${empty}\n\n${body}`,
    details: { path: source, pageCount: pdf.pageCount, pagesShown: pdf.pages.length },
  };
}
