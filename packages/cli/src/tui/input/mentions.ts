import { open, readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { MENTIONS_NOTE } from "@attractor/runtime";
import { type ImageAttachment, isImagePath, readImageFile } from "./images.js";

/** A `@path` or `@path:from-to` in a message. */
export interface Mention {
  /** As typed, without the `@`. */
  readonly raw: string;
  readonly path: string;
  readonly from?: number;
  readonly to?: number;
}

/** What the model gets for a message with mentions, and what could not be attached. */
export interface ExpandedMessage {
  /** The attached contents first, then the message as typed. */
  readonly text: string;
  readonly attached: readonly string[];
  /** Mentioned image files, in order, to send as image parts of the message. */
  readonly images: readonly ImageAttachment[];
  /** One line per mention that could not be attached, saying why. */
  readonly problems: readonly string[];
}

/** Bytes of one file attached at most; the rest is left for the model to read if it needs it. */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_DIRECTORY_ENTRIES = 200;
const MENTION = /(?<=^|\s)@([^\s@]+)/g;
const RANGE = /^(.*?):(\d+)(?:-(\d+))?$/;

/** The mentions of a message, in order, each once. An email address is not one (no space before @). */
export function findMentions(text: string): Mention[] {
  const seen = new Set<string>();
  const out: Mention[] = [];
  for (const match of text.matchAll(MENTION)) {
    // Trailing punctuation belongs to the sentence, not the path.
    const raw = (match[1] as string).replace(/[,.;:!?)\]]+$/, "");
    if (raw === "" || seen.has(raw)) continue;
    seen.add(raw);
    const range = RANGE.exec(raw);
    if (range) {
      const from = Number(range[2]);
      const to = range[3] === undefined ? from : Number(range[3]);
      out.push({ raw, path: range[1] as string, from: Math.min(from, to), to: Math.max(from, to) });
    } else out.push({ raw, path: raw });
  }
  return out;
}

/**
 * Puts the content of each mentioned file (or the listing of a mentioned directory) of the project
 * before the message, labelled as already provided. Paths outside the project, missing files and
 * binary files are not attached; each is reported in `problems` and the message goes on without it.
 */
export async function expandMentions(
  text: string,
  projectDir: string,
  options: {
    /** Images the message carries before the mentioned ones (pasted), so the labels count right. */
    readonly imagesBefore?: number;
  } = {},
): Promise<ExpandedMessage> {
  const mentions = findMentions(text);
  if (mentions.length === 0) return { text, attached: [], images: [], problems: [] };
  const root = await realpath(projectDir).catch(() => resolve(projectDir));
  const blocks: string[] = [];
  const attached: string[] = [];
  const problems: string[] = [];
  const images: ImageAttachment[] = [];
  for (const mention of mentions) {
    try {
      const found = await attach(mention, root);
      if (typeof found === "string") blocks.push(found);
      else {
        images.push(found.image);
        blocks.push(
          `<attached-image path="${found.shown}">(image ${(options.imagesBefore ?? 0) + images.length} of this message)</attached-image>\n`,
        );
      }
      attached.push(mention.raw);
    } catch (error) {
      // A path that is not there may well be meant as plain text (an npm scope, a handle).
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      problems.push(`@${mention.raw}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (blocks.length === 0) return { text, attached, images, problems };
  return { text: `${blocks.join("")}${MENTIONS_NOTE}${text}`, attached, images, problems };
}

/** A text block to put before the message, or an image file (with its project-relative path). */
async function attach(
  mention: Mention,
  root: string,
): Promise<string | { readonly image: ImageAttachment; readonly shown: string }> {
  if (isAbsolute(mention.path) || mention.path.startsWith("~"))
    throw new Error("only paths inside the project");
  // Symbolic links are followed before the check, so none leads outside the project.
  const real = await realpath(resolve(root, mention.path));
  const rel = relative(root, real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new Error("only paths inside the project");
  const shown = rel === "" ? "." : rel.split(sep).join("/");
  const info = await stat(real);
  if (info.isDirectory()) {
    const entries = await readdir(real, { withFileTypes: true });
    const names = entries
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
      .slice(0, MAX_DIRECTORY_ENTRIES);
    const more = entries.length > names.length ? `\n… ${entries.length - names.length} more entries` : "";
    return `<attached-directory path="${shown}">\n${names.join("\n")}${more}\n</attached-directory>\n`;
  }
  if (!info.isFile()) throw new Error("not a file or directory");
  if (isImagePath(real)) {
    // The error of an image that cannot go names the mention already; only the reason is kept.
    const image = await readImageFile(real, shown).catch((error: Error) => {
      throw new Error(error.message.replace(`${shown}: `, ""));
    });
    return { image, shown };
  }
  const handle = await open(real, "r");
  let content: string;
  let cut = false;
  try {
    const buffer = Buffer.alloc(Math.min(info.size, MAX_FILE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (buffer.subarray(0, bytesRead).includes(0)) throw new Error("a binary file; not attached");
    content = buffer.subarray(0, bytesRead).toString("utf8");
    cut = info.size > bytesRead;
  } finally {
    await handle.close();
  }
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = mention.from ?? 1;
  const last = Math.min(mention.to ?? lines.length, lines.length);
  if (mention.from !== undefined && first > lines.length)
    throw new Error(`the file has ${lines.length} lines; line ${first} is past its end`);
  const body = lines
    .slice(first - 1, last)
    .map((line, i) => `${first + i}\t${line}`)
    .join("\n");
  const range = mention.from !== undefined ? ` lines="${first}-${last}"` : "";
  const tail = cut && mention.to === undefined ? `\n… the file goes on past ${MAX_FILE_BYTES / 1024} KB` : "";
  return `<attached-file path="${shown}"${range}>\n${body}${tail}\n</attached-file>\n`;
}
