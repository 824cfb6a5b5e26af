import { readdir, readFile, realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { FrontmatterError, type MarkdownDocument, parseMarkdownDocument } from "./frontmatter.js";

/** One markdown file found under a folder. */
export interface MarkdownFile {
  readonly file: string;
  /** The path below the folder without `.md`, split on directories (["frontend", "test"]). */
  readonly parts: readonly string[];
  readonly document: MarkdownDocument;
}

/** A file that could not be used, and why. */
export interface DefinitionProblem {
  readonly file: string;
  readonly problem: string;
}

/** Files found and problems met while reading definition folders. */
export interface FolderScan<T> {
  readonly items: readonly T[];
  readonly problems: readonly DefinitionProblem[];
}

const MAX_DEPTH = 6;

/**
 * Every `*.md` file under `folder` (sub-folders too, up to a depth of 6), parsed; a missing folder
 * gives nothing, an unreadable or malformed file is reported as a problem and skipped.
 */
export async function readMarkdownFolder(
  folder: string,
  options: { readonly fileName?: string } = {},
): Promise<FolderScan<MarkdownFile>> {
  const items: MarkdownFile[] = [];
  const problems: DefinitionProblem[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        problems.push({ file: dir, problem: `cannot read: ${(error as Error).message}` });
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(path)));
      if (isDir) {
        if (depth < MAX_DEPTH && !entry.name.startsWith(".")) await walk(path, depth + 1);
        continue;
      }
      const wanted = options.fileName ? entry.name === options.fileName : entry.name.endsWith(".md");
      if (!wanted) continue;
      try {
        const text = await readFile(path, "utf8");
        const rel = relative(folder, path).replace(/\.md$/i, "");
        items.push({ file: path, parts: rel.split(sep), document: await parseMarkdownDocument(text, path) });
      } catch (error) {
        problems.push({
          file: path,
          problem:
            error instanceof FrontmatterError ? error.problem : `cannot read: ${(error as Error).message}`,
        });
      }
    }
  };
  await walk(folder, 0);
  return { items, problems };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    const { stat } = await import("node:fs/promises");
    return (await stat(await realpath(path))).isDirectory();
  } catch {
    return false;
  }
}
