/** A one-line summary of a tool call: `edit_file src/a.ts`, `shell npm test`, `grep TODO`. */
export function summarizeCall(toolName: string, args: Readonly<Record<string, unknown>>, max = 80): string {
  const first = ["command", "file_path", "path", "pattern", "question", "query"]
    .map((key) => args[key])
    .find((v): v is string => typeof v === "string" && v.trim() !== "");
  let target = first ?? "";
  if (!first && typeof args.patch === "string") {
    const files = [...args.patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]);
    target = files.join(", ");
  }
  // Code-intelligence calls name their symbol beside the file.
  if (typeof args.symbolName === "string" && args.symbolName.trim() !== "") target += ` ${args.symbolName}`;
  const oneLine = target.replace(/\s+/g, " ").trim();
  const short = oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
  return short ? `${toolName} ${short}` : toolName;
}
