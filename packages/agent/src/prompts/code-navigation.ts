// Kept beside the prompt builder rather than in lsp/: the builder adds it whenever the offered
// tools include code-intelligence tools, whoever provides them.

/** The system prompt's code-navigation section, for the code-intelligence tools among `offered`. */
export function codeNavigationGuidance(offered: readonly { readonly name: string }[]): string {
  const names = new Set(offered.map((t) => t.name));
  const advice: [string, string][] = [
    ["get_document_symbols", "before reading a large file, to see its structure and read only what matters"],
    ["find_definition", "to follow a call or a type to its source across files"],
    ["find_references", "before changing shared code, to see everything that uses it"],
    ["find_symbol", "when you do not know which file defines a symbol"],
    ["get_hover_info", "for a symbol's type signature and documentation"],
    ["get_call_hierarchy", "to trace who calls a function and what it calls"],
    ["find_implementations", "for the implementations of an interface or abstract method"],
    ["get_type_hierarchy", "for a class's or interface's inheritance chain"],
    ["get_diagnostics", "to check a file for errors after changing it"],
  ];
  const lines = advice.filter(([name]) => names.has(name)).map(([name, why]) => `- Use ${name} ${why}.`);
  if (lines.length === 0) return "";
  return [
    "# Code navigation strategy",
    "Language servers understand this project's code: for where a symbol is defined or used, its type, callers or subclasses, ask them rather than searching text. Point at a symbol by path and symbolName.",
    ...lines,
  ].join("\n");
}
