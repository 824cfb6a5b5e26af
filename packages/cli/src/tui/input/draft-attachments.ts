import type { ImageAttachment } from "./images.js";

/**
 * What the draft's placeholders stand for: collapsed pastes and attached images, each under the
 * number its placeholder shows. The placeholders are plain text in the editor; a deleted one
 * drops what it stood for.
 */
export interface DraftAttachments {
  readonly pastes: ReadonlyMap<number, string>;
  readonly images: ReadonlyMap<number, ImageAttachment>;
}

/** A draft with nothing attached. */
export const NO_ATTACHMENTS: DraftAttachments = { pastes: new Map(), images: new Map() };

/** Pastes of at least this many lines, or longer than PASTE_COLLAPSE_CHARS, show as a placeholder. */
export const PASTE_COLLAPSE_LINES = 3;
export const PASTE_COLLAPSE_CHARS = 800;

/** Whether a paste is large enough to stand in the editor as a placeholder. */
export function shouldCollapse(pasted: string): boolean {
  return pasted.split("\n").length >= PASTE_COLLAPSE_LINES || pasted.length > PASTE_COLLAPSE_CHARS;
}

/** The placeholder of a collapsed paste: its number and the lines after the first (or its length). */
export function pasteToken(id: number, pasted: string): string {
  const more = pasted.split("\n").length - 1;
  if (more === 0) return `[Pasted text #${id} ${pasted.length} chars]`;
  return `[Pasted text #${id} +${more} line${more === 1 ? "" : "s"}]`;
}

/** The placeholder of an attached image. */
export function imageToken(id: number): string {
  return `[Image #${id}]`;
}

const TOKEN = /\[(?:Pasted text #(\d+) (?:\+\d+ lines?|\d+ chars)|Image #(\d+))\]/g;

/** The next free number for a paste (or an image) in the draft. */
export function nextId(attachments: DraftAttachments, kind: "paste" | "image"): number {
  const used = kind === "paste" ? attachments.pastes : attachments.images;
  return Math.max(0, ...used.keys()) + 1;
}

/** Adds a collapsed paste under `id`. */
export function withPaste(attachments: DraftAttachments, id: number, text: string): DraftAttachments {
  return { ...attachments, pastes: new Map(attachments.pastes).set(id, text) };
}

/** Adds an image under `id`. */
export function withImage(
  attachments: DraftAttachments,
  id: number,
  image: ImageAttachment,
): DraftAttachments {
  return { ...attachments, images: new Map(attachments.images).set(id, image) };
}

/**
 * The length of the placeholder that ends exactly at `cursor` and stands for something attached
 * (0 when there is none), so Backspace removes it whole.
 */
export function placeholderBefore(text: string, cursor: number, attachments: DraftAttachments): number {
  const before = text.slice(Math.max(0, cursor - 64), cursor);
  let found = 0;
  for (const match of before.matchAll(TOKEN)) {
    if ((match.index ?? 0) + match[0].length !== before.length) continue;
    if (isKnown(match, attachments)) found = match[0].length;
  }
  return found;
}

/**
 * The message as sent: each paste placeholder replaced by the pasted text; the images whose
 * placeholders are still in the text, in the order they appear (their placeholders stay, so the
 * model can tell them apart). Placeholders that stand for nothing are left as typed.
 */
export function resolveDraft(
  text: string,
  attachments: DraftAttachments,
): { readonly text: string; readonly images: readonly ImageAttachment[] } {
  const images: ImageAttachment[] = [];
  const seen = new Set<number>();
  const resolved = text.replace(TOKEN, (token, paste: string | undefined, image: string | undefined) => {
    if (paste !== undefined) return attachments.pastes.get(Number(paste)) ?? token;
    const id = Number(image);
    const attached = attachments.images.get(id);
    if (attached !== undefined && !seen.has(id)) {
      seen.add(id);
      images.push(attached);
    }
    return token;
  });
  return { text: resolved, images };
}

function isKnown(match: RegExpMatchArray, attachments: DraftAttachments): boolean {
  if (match[1] !== undefined) return attachments.pastes.has(Number(match[1]));
  return attachments.images.has(Number(match[2]));
}
