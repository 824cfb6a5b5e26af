import type { Diagnostic, DiagnosticSeverity } from "vscode-languageserver-protocol";

// Servers publish diagnostics when they change, so "nothing new" arrives as silence; asking
// for them gives an answer at once. LSP 3.17 servers answer textDocument/diagnostic;
// typescript-language-server answers tsserver's own diagnostics requests through a command.

/** The command typescript-language-server runs tsserver requests through. */
export const TSSERVER_REQUEST_COMMAND = "typescript.tsserverRequest";

/** A tsserver diagnostic (1-based lines and offsets). */
export interface TsserverDiagnostic {
  readonly start: { readonly line: number; readonly offset: number };
  readonly end: { readonly line: number; readonly offset: number };
  readonly text: string;
  readonly code?: number;
  readonly category?: string;
}

const SEVERITY: Readonly<Record<string, DiagnosticSeverity>> = {
  error: 1,
  warning: 2,
  suggestion: 4,
  message: 3,
};

/** tsserver diagnostics as LSP diagnostics. */
export function fromTsserver(list: readonly TsserverDiagnostic[]): Diagnostic[] {
  return list.map((d) => ({
    range: {
      start: { line: d.start.line - 1, character: d.start.offset - 1 },
      end: { line: d.end.line - 1, character: d.end.offset - 1 },
    },
    message: d.text,
    severity: SEVERITY[d.category ?? "error"] ?? 1,
    source: "typescript",
    ...(d.code !== undefined && { code: d.code }),
  }));
}

/** The body of a tsserver response as typescript-language-server returns it, or undefined. */
export function tsserverBody(response: unknown): readonly TsserverDiagnostic[] | undefined {
  const body = (response as { body?: unknown } | null)?.body;
  return Array.isArray(body) ? (body as TsserverDiagnostic[]) : undefined;
}
