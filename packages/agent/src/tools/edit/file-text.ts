const BOM = "\uFEFF";

/**
 * A file's text as the edit layers see it: without its byte-order mark and with every CRLF read
 * as LF, plus what is needed to put a change back with the file's own line breaks.
 */
export interface FileText {
  /** The file's text after the BOM, line breaks as they are. */
  readonly raw: string;
  /** `raw` with each CRLF turned into LF. */
  readonly lf: string;
  readonly bom: boolean;
  /** The file's usual line break, for text placed where the file gives no hint. */
  readonly eol: "\n" | "\r\n";
  /** LF offsets (in `lf`) of the line breaks that are CRLF in `raw`, ascending. */
  readonly crlfAt: readonly number[];
}

/** Reads a file's text into its LF form, remembering its BOM and line breaks. */
export function fileText(original: string): FileText {
  const bom = original.startsWith(BOM);
  const raw = bom ? original.slice(1) : original;
  const crlfAt: number[] = [];
  let lfBreaks = 0;
  let removed = 0;
  for (let i = raw.indexOf("\n"); i !== -1; i = raw.indexOf("\n", i + 1)) {
    if (i > 0 && raw[i - 1] === "\r") {
      crlfAt.push(i - 1 - removed);
      removed++;
    } else lfBreaks++;
  }
  const lf = crlfAt.length === 0 ? raw : raw.replaceAll("\r\n", "\n");
  return { raw, lf, bom, eol: crlfAt.length > lfBreaks ? "\r\n" : "\n", crlfAt };
}

/** The offset in `raw` of LF offset `at`; a line break maps to where its CR starts. */
export function rawOffset(file: FileText, at: number): number {
  let lo = 0;
  let hi = file.crlfAt.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((file.crlfAt[mid] as number) < at) lo = mid + 1;
    else hi = mid;
  }
  return at + lo;
}

/** The line break used around LF offset `at`: the next break's kind, else the previous one's, else the file's. */
export function lineBreakNear(file: FileText, at: number): "\n" | "\r\n" {
  let next = file.lf.indexOf("\n", at);
  if (next === -1) next = file.lf.lastIndexOf("\n", Math.max(0, at - 1));
  if (next === -1) return file.eol;
  return file.crlfAt.includes(next) ? "\r\n" : "\n";
}

/** Turns text the model wrote into LF text: CRLF and a leading BOM are encoding, not content. */
export function modelText(text: string): string {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  return body.replaceAll("\r\n", "\n");
}

/** Whether text the model wrote starts with a byte-order mark. */
export function startsWithBom(text: string): boolean {
  return text.startsWith(BOM);
}

/** A span of the LF text and the LF text to put there. */
export interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The raw file with each LF span replaced, the new text written with the line breaks around it. */
export function spliceFile(file: FileText, splices: readonly Splice[], bom: boolean): string {
  let body = file.raw;
  for (const s of [...splices].sort((a, b) => b.start - a.start)) {
    const eol = lineBreakNear(file, s.start);
    const text = eol === "\n" ? s.text : s.text.replaceAll("\n", "\r\n");
    body = body.slice(0, rawOffset(file, s.start)) + text + body.slice(rawOffset(file, s.end));
  }
  return bom ? BOM + body : body;
}

/**
 * Whole new content for an existing file, in the file's conventions: the model never sees a BOM or
 * CRs (read_file shows neither), so LF content over a CRLF file gets CRLF, and content over a file
 * with a BOM keeps it. Content that has CRLF or a BOM of its own, and a mixed file, are as given.
 */
export function inFileConventions(previous: string, content: string): string {
  const before = fileText(previous);
  let out = content;
  const breaks = before.lf.split("\n").length - 1;
  const allCrlf = breaks > 0 && before.crlfAt.length === breaks;
  if (allCrlf && !content.includes("\r")) out = out.replaceAll("\n", "\r\n");
  if (before.bom && !out.startsWith(BOM)) out = BOM + out;
  return out;
}
