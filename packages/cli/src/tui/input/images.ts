import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** An image the user attached to a message, ready to send (base64, sniffed media type). */
export interface ImageAttachment {
  /** Where it came from, for messages: a path or "clipboard". */
  readonly source: string;
  readonly mediaType: ImageMediaType;
  /** The bytes as base64. */
  readonly data: string;
  readonly bytes: number;
}

/** The formats every supported provider takes in a user message. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Why an image could not be attached. */
export type ImageProblem = "too_large" | "unsupported_format" | "unreadable" | "empty";

/** An image that cannot be attached; the message says why and what is accepted. */
export class ImageAttachError extends Error {
  constructor(
    message: string,
    readonly source: string,
    readonly problem: ImageProblem,
  ) {
    super(message);
    this.name = "ImageAttachError";
  }
}

/** Larger images are refused: the providers' own limit for one image is about 5 MB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const ACCEPTED = "PNG, JPEG, GIF and WebP";

const SUPPORTED_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);

/** File name endings that mean an image (supported or not), so a mention of one is not read as text. */
const IMAGE_EXTENSIONS = new Set([
  ".png",
  ".jpg",
  ".jpeg",
  ".gif",
  ".webp",
  ".bmp",
  ".tif",
  ".tiff",
  ".heic",
  ".heif",
  ".avif",
  ".svg",
  ".ico",
]);

/** True when the path's extension names an image format. */
export function isImagePath(path: string): boolean {
  return IMAGE_EXTENSIONS.has(extname(path).toLowerCase());
}

/** The media type the bytes' signature shows, when it is one of the accepted formats. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const at = (i: number) => bytes[i];
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return "image/png";
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return "image/jpeg";
  const head = Buffer.from(bytes.subarray(0, 12)).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/**
 * The bytes as an attachment; throws ImageAttachError when they are empty, over MAX_IMAGE_BYTES
 * or not PNG, JPEG, GIF or WebP (the signature decides, not the name).
 */
export function imageFromBytes(bytes: Uint8Array, source: string): ImageAttachment {
  if (bytes.length === 0) throw new ImageAttachError(`${source}: the image is empty`, source, "empty");
  if (bytes.length > MAX_IMAGE_BYTES)
    throw new ImageAttachError(
      `${source}: the image is ${megabytes(bytes.length)}; at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MB can be attached`,
      source,
      "too_large",
    );
  const mediaType = sniffImageType(bytes);
  if (mediaType === undefined) {
    const ext = extname(source).toLowerCase();
    const reason =
      ext === "" || SUPPORTED_EXTENSIONS.has(ext)
        ? `not a valid ${ACCEPTED.replace(" and ", " or ")} image`
        : `${ext.slice(1).toUpperCase()} images cannot be attached; ${ACCEPTED} can`;
    throw new ImageAttachError(`${source}: ${reason}`, source, "unsupported_format");
  }
  return { source, mediaType, data: Buffer.from(bytes).toString("base64"), bytes: bytes.length };
}

/** Reads an image file (`source` names it in messages); throws ImageAttachError as imageFromBytes. */
export async function readImageFile(path: string, source = path): Promise<ImageAttachment> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error("not a file");
    size = info.size;
  } catch (error) {
    throw new ImageAttachError(
      `${source}: cannot be read (${error instanceof Error ? error.message : String(error)})`,
      source,
      "unreadable",
    );
  }
  // Checked before reading, so a huge file is never loaded to be refused.
  if (size > MAX_IMAGE_BYTES) return imageFromBytes(new Uint8Array(size), source);
  return imageFromBytes(await readFile(path), source);
}

function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The image files a paste names, when the pasted text is one path to an image, or several
 * separated by spaces (as terminals paste dropped files: quoted, with backslash-escaped spaces,
 * or as file:// URLs); undefined otherwise. Relative paths are taken from `cwd`. `whole` is the
 * text read as one path (spaces included), for terminals that paste a path unescaped; the caller
 * tries it first when that file exists. Existence is not checked here.
 */
export function pastedImagePaths(
  pasted: string,
  cwd: string,
): { readonly whole: string | undefined; readonly words: readonly string[] | undefined } | undefined {
  const text = pasted.trim();
  if (text === "" || text.includes("\n")) return undefined;
  const whole = toImagePath(/^(['"])(.*)\1$/.exec(text)?.[2] ?? text, cwd);
  const parts = shellWords(text);
  const paths = parts?.map((w) => toImagePath(w, cwd));
  const words =
    paths && paths.length > 0 && paths.every((p) => p !== undefined) ? (paths as string[]) : undefined;
  if (whole === undefined && words === undefined) return undefined;
  return { whole, words };
}

/** An image path as a file path (file:// URL decoded, ~ expanded, made absolute); else undefined. */
function toImagePath(word: string, cwd: string): string | undefined {
  let path = word;
  if (path.startsWith("file://")) {
    try {
      path = fileURLToPath(path);
    } catch {
      return undefined;
    }
  }
  if (!isImagePath(path)) return undefined;
  if (path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** Words split as a shell would (quotes, backslash escapes); undefined when a quote is left open. */
function shellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote !== undefined) return undefined;
  if (inWord) words.push(word);
  return words;
}
