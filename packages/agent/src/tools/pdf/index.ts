export { extractPdfText, looksLikePdf, type PdfPageText, type PdfText } from "./pdf-text.js";
export { DEFAULT_PDF_PAGES, readPdfText } from "./read-pdf.js";
