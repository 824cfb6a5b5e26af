import { basename } from "node:path";
import type { ToolOutput } from "../../types/tool.js";
import { extractPdfText } from "./pdf-text.js";

/** Pages read when a call names no limit. */
export const DEFAULT_PDF_PAGES = 50;
/**
 * The largest PDF sent whole as a document: within every provider's limit (Anthropic: 32 MB
 * requests, 100 pages; Gemini: 20 MB of inline data per request; OpenAI: 50 MB of files) once
 * base64 has grown it by a third and the rest of the conversation is counted.
 */
export const PDF_DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;
/** The most pages a PDF sent as a document may have (Anthropic's limit). */
export const PDF_DOCUMENT_MAX_PAGES = 100;

/**
 * A PDF for the model: the text of pages `offset`..`offset + limit - 1` (1-based; the first 50
 * by default), each under a page heading, with the page count so the model can ask for the rest.
 * Read whole (no offset or limit) and within PDF_DOCUMENT_MAX_BYTES and _PAGES, the PDF itself
 * comes too, as the document that providers taking documents get instead of the text; a larger
 * one says why its text comes instead.
 */
export async function readPdfText(
  data: Uint8Array,
  source: string,
  offset?: number,
  limit?: number,
): Promise<ToolOutput> {
  const whole = offset === undefined && limit === undefined;
  offset ??= 1;
  limit ??= DEFAULT_PDF_PAGES;
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
  const pages = `${pdf.pageCount} page${pdf.pageCount === 1 ? "" : "s"}`;
  const fits = data.length <= PDF_DOCUMENT_MAX_BYTES && pdf.pageCount <= PDF_DOCUMENT_MAX_PAGES;
  const tooLarge =
    whole && !fits
      ? `\n(Too large to attach as a document: above ${PDF_DOCUMENT_MAX_BYTES / 1024 / 1024} MB or ${PDF_DOCUMENT_MAX_PAGES} pages; its text follows.)`
      : "";
  return {
    output: `PDF ${source}, ${pages}; text of pages ${firstShown}-${lastShown}.${rest}${empty}${tooLarge}\n\n${body}`,
    details: { path: source, pageCount: pdf.pageCount, pagesShown: pdf.pages.length },
    ...(whole &&
      fits && {
        document: {
          document: {
            data: Buffer.from(data).toString("base64"),
            mediaType: "application/pdf",
            fileName: basename(source) || "document.pdf",
          },
          text: `PDF ${source}, ${pages}: the whole document is attached.`,
        },
      }),
  };
}
