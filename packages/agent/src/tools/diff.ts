import { createTwoFilesPatch } from "diff";

/**
 * A unified diff (3 lines of context) between two versions of a file; undefined `before` means
 * the file is created, undefined `after` that it is deleted; `newPath` names a move's
 * destination. Empty string when nothing changed.
 */
export function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string | undefined,
  newPath: string = path,
): string {
  if (before === after && newPath === path) return "";
  const from = before === undefined ? "/dev/null" : `a/${path}`;
  const to = after === undefined ? "/dev/null" : `b/${newPath}`;
  const patch = createTwoFilesPatch(from, to, before ?? "", after ?? "", undefined, undefined, {
    context: 3,
  });
  // Drop the "=====" banner line the diff package puts first.
  return patch.startsWith("=") ? patch.slice(patch.indexOf("\n") + 1) : patch;
}
