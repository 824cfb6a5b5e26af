import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { extname, resolve } from "node:path";
import { InvalidRequestError } from "../../errors.js";
import type { MediaData } from "../../types/index.js";

const MIME_BY_EXT: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".txt": "text/plain",
};

/** The MIME type for a file name's extension, or undefined. */
export const mimeFromPath = (path: string): string | undefined => MIME_BY_EXT[extname(path).toLowerCase()];

/** Media in one of two wire shapes: a URL, or base64 data with its MIME type. */
export type ResolvedMedia =
  | { readonly kind: "url"; readonly url: string; readonly mediaType?: string }
  | { readonly kind: "base64"; readonly data: string; readonly mediaType: string };

/**
 * Normalises media for the wire: local paths are read and inlined, bytes become base64, data:
 * URLs are split. Fails with InvalidRequestError when the file cannot be read.
 */
export async function resolveMedia(
  media: MediaData,
  provider: string,
  defaultType = "image/png",
): Promise<ResolvedMedia> {
  if (media.path !== undefined) {
    const path = media.path.startsWith("~") ? homedir() + media.path.slice(1) : resolve(media.path);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (err) {
      throw new InvalidRequestError(`cannot read media file ${media.path}: ${(err as Error).message}`, {
        provider,
        cause: err,
      });
    }
    return {
      kind: "base64",
      data: bytes.toString("base64"),
      mediaType: media.mediaType ?? mimeFromPath(path) ?? defaultType,
    };
  }
  if (media.data !== undefined) {
    const data = typeof media.data === "string" ? media.data : Buffer.from(media.data).toString("base64");
    return { kind: "base64", data, mediaType: media.mediaType ?? defaultType };
  }
  if (media.url !== undefined) {
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(media.url);
    if (m) return { kind: "base64", mediaType: m[1]!, data: m[2]! };
    return {
      kind: "url",
      url: media.url,
      ...(media.mediaType !== undefined && { mediaType: media.mediaType }),
    };
  }
  throw new InvalidRequestError("media needs one of url, data or path", { provider });
}

/** The media as a data: URL (OpenAI accepts these for images). */
export const toDataUrl = (m: Extract<ResolvedMedia, { kind: "base64" }>): string =>
  `data:${m.mediaType};base64,${m.data}`;
