import { ToolError } from "../shared/tool-errors.js";

/** The text of one page of a PDF. */
export interface PdfPageText {
  readonly number: number;
  readonly text: string;
}

export interface PdfText {
  readonly pageCount: number;
  readonly pages: readonly PdfPageText[];
}

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
let pdfjs: Promise<PdfJs> | undefined;
/** pdf.js loads on the first PDF read: a session that reads none never parses it. */
const loadPdfJs = (): Promise<PdfJs> => {
  pdfjs ??= (async () => {
    // pdf.js parses on this thread with the worker module it finds on globalThis; loaded here by
    // name, rather than by the path pdf.js would compute, so a bundler includes it.
    const worker = await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
    const scope = globalThis as { pdfjsWorker?: unknown };
    scope.pdfjsWorker ??= worker;
    return import("pdfjs-dist/legacy/build/pdf.mjs");
  })();
  return pdfjs;
};

/** Whether bytes start like a PDF file. */
export function looksLikePdf(head: Uint8Array): boolean {
  return Buffer.from(head.subarray(0, 5)).toString("latin1") === "%PDF-";
}

/**
 * The text of pages `first`..`last` (1-based, clamped to the document) of a PDF, extracted by
 * pdf.js: each page's text items in reading order, a line break where pdf.js marks the end of a
 * line. Throws ToolError("invalid_pdf") for a file pdf.js cannot open (damaged, encrypted).
 */
export async function extractPdfText(
  data: Uint8Array,
  first = 1,
  last = Number.MAX_SAFE_INTEGER,
): Promise<PdfText> {
  const { getDocument } = await loadPdfJs();
  // pdf.js takes ownership of the buffer it is given: a copy keeps the caller's bytes usable.
  const task = getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    throw new ToolError("invalid_pdf", `The PDF could not be read: ${(err as Error).message}`);
  }
  try {
    const pages: PdfPageText[] = [];
    const end = Math.min(last, doc.numPages);
    for (let number = Math.max(1, first); number <= end; number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if (!("str" in item)) continue;
        text += item.str;
        if (item.hasEOL) text += "\n";
      }
      pages.push({ number, text: text.trim() });
      page.cleanup();
    }
    return { pageCount: doc.numPages, pages };
  } finally {
    await doc.destroy();
  }
}
