export { extractPdfText, looksLikePdf, type PdfPageText, type PdfText } from "./pdf-text.js";
export {
  DEFAULT_PDF_PAGES,
  PDF_DOCUMENT_MAX_BYTES,
  PDF_DOCUMENT_MAX_PAGES,
  readPdfText,
} from "./read-pdf.js";
