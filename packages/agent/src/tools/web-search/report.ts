import type { AnswerSegment, WebSearchFindings, WebSearchSource } from "./findings.js";

/** A page of a search's report, numbered as the answer's markers refer to it. */
export interface NumberedSource extends WebSearchSource {
  /** 1-based: the answer's `[n]` marks cite it. */
  readonly n: number;
  /** Whether the answer cites it (not just found). */
  readonly cited: boolean;
  /** The passages the answer cites from it, or the stretches of the answer it supports. */
  readonly citedTexts?: readonly string[];
}

/** One search as the tool reports it (ToolDetails.webSearch): hosts render the sources from it. */
export interface WebSearchReport {
  readonly query: string;
  readonly backend: string;
  readonly queries: readonly string[];
  /** The answer with `[n]` marks after each cited stretch; absent for a plain result list. */
  readonly answer?: string;
  readonly sources: readonly NumberedSource[];
  readonly note?: string;
}

/** Characters of a result's snippet kept in the tool's text. */
const SNIPPET_CHARS = 300;

function numberSources(findings: WebSearchFindings): Map<string, NumberedSource> {
  const byUrl = new Map<string, NumberedSource>();
  const resultOf = new Map(findings.results.map((r) => [r.url, r]));
  // A citation without the passage (OpenAI's) gives the stretch of the answer it supports.
  const citations = (findings.answer ?? []).flatMap((s) =>
    s.citations.map((c) => ({
      ...c,
      passage:
        c.citedText ??
        (c.startIndex !== undefined && c.endIndex !== undefined && c.endIndex > c.startIndex
          ? s.text.slice(c.startIndex, c.endIndex)
          : undefined),
    })),
  );
  for (const c of citations) {
    const known = byUrl.get(c.url);
    const cited = c.passage !== undefined ? [c.passage] : [];
    if (known !== undefined) {
      const texts = [...(known.citedTexts ?? []), ...cited.filter((t) => !known.citedTexts?.includes(t))];
      byUrl.set(c.url, { ...known, ...(texts.length > 0 && { citedTexts: texts }) });
      continue;
    }
    const result = resultOf.get(c.url);
    const title = c.title ?? result?.title;
    byUrl.set(c.url, {
      ...result,
      url: c.url,
      ...(title !== undefined && { title }),
      n: byUrl.size + 1,
      cited: true,
      ...(cited.length > 0 && { citedTexts: cited }),
    });
  }
  for (const r of findings.results)
    if (!byUrl.has(r.url)) byUrl.set(r.url, { ...r, n: byUrl.size + 1, cited: false });
  return byUrl;
}

/** A segment's text with `[n]` after each stretch a source supports (at its end when unknown). */
function markedSegment(segment: AnswerSegment, sources: Map<string, NumberedSource>): string {
  const marks = new Map<number, Set<number>>();
  for (const c of segment.citations) {
    const n = sources.get(c.url)?.n;
    if (n === undefined) continue;
    let at = segment.text.length;
    if (c.endIndex !== undefined && c.endIndex >= 0 && c.endIndex <= segment.text.length) at = c.endIndex;
    else if (c.citedText !== undefined) {
      const found = segment.text.indexOf(c.citedText);
      if (found >= 0) at = found + c.citedText.length;
    }
    const set = marks.get(at) ?? new Set<number>();
    set.add(n);
    marks.set(at, set);
  }
  let text = segment.text;
  for (const at of [...marks.keys()].sort((a, b) => b - a)) {
    const label = [...(marks.get(at) ?? [])]
      .sort((a, b) => a - b)
      .map((n) => `[${n}]`)
      .join("");
    text = `${text.slice(0, at)}${label}${text.slice(at)}`;
  }
  return text;
}

/** Numbers a search's pages (cited ones first) and marks the answer with them. */
export function webSearchReport(query: string, findings: WebSearchFindings): WebSearchReport {
  const sources = numberSources(findings);
  const answer = (findings.answer ?? [])
    .map((s) => markedSegment(s, sources))
    .join("")
    .trim();
  return {
    query,
    backend: findings.backend,
    queries: findings.queries,
    ...(answer !== "" && { answer }),
    sources: [...sources.values()],
    ...(findings.note !== undefined && { note: findings.note }),
  };
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The report as the model reads it: the answer, then the numbered sources with their URLs. */
export function webSearchReportText(report: WebSearchReport): string {
  const ran = report.queries.filter((q) => q !== report.query);
  const lines = [
    `Web search (${report.backend}) for "${report.query}"${ran.length > 0 ? `; searched: ${ran.map((q) => `"${q}"`).join(", ")}` : ""}.`,
  ];
  if (report.note !== undefined) lines.push(report.note);
  if (report.answer !== undefined) lines.push("", report.answer);
  if (report.sources.length === 0) {
    lines.push("", "No results.");
    return lines.join("\n");
  }
  lines.push("", "Sources:");
  for (const s of report.sources) {
    lines.push(`[${s.n}] ${s.title !== undefined ? oneLine(s.title) : s.url}`, `    ${s.url}`);
    if (s.snippet !== undefined) {
      const text = oneLine(s.snippet);
      lines.push(`    ${text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS - 1)}…` : text}`);
    }
  }
  lines.push("", "Cite the sources you use by their URLs.");
  return lines.join("\n");
}
