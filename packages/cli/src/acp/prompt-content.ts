import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ImageData } from "@attractor/llm";
import { MENTIONS_NOTE } from "@attractor/runtime";

/** Bytes of one attached resource at most, as for an `@file` in the terminal. */
const MAX_ATTACHED_CHARS = 256 * 1024;

/** A prompt as the runtime takes it: the text (context first) and images. */
export interface PromptInput {
  readonly text: string;
  readonly images: readonly ImageData[];
  /** What the user typed, without the attached context (a slash command is read from it). */
  readonly typed: string;
}

/** Reads a linked file's text (through the editor when it offers that); undefined when unreadable. */
export type LinkReader = (absolutePath: string) => Promise<string | undefined>;

/**
 * Converts an ACP prompt into a user message. Embedded resources (an editor's selection or file)
 * and links to text files become `<attached-file>` blocks before the typed text, labelled as the
 * user's context exactly as `@file` mentions are in the terminal; images go as image parts.
 */
export async function promptInput(
  blocks: readonly ContentBlock[],
  projectDir: string,
  readLink: LinkReader,
): Promise<PromptInput> {
  const typed: string[] = [];
  const attached: string[] = [];
  const images: ImageData[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        typed.push(block.text);
        break;
      case "image":
        images.push({ data: block.data, mediaType: block.mimeType });
        attached.push(
          `<attached-image path="${block.uri ?? "pasted image"}">(image ${images.length} of this message)</attached-image>\n`,
        );
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          attached.push(
            attachedFile(shownPath(resource.uri, projectDir), resource.text, lineRange(resource.uri)),
          );
        } else if (resource.mimeType?.startsWith("image/")) {
          images.push({ data: resource.blob, mediaType: resource.mimeType });
          attached.push(
            `<attached-image path="${shownPath(resource.uri, projectDir)}">(image ${images.length} of this message)</attached-image>\n`,
          );
        } else {
          typed.push(`[${shownPath(resource.uri, projectDir)} (binary, not attached)]`);
        }
        break;
      }
      case "resource_link": {
        const path = filePath(block.uri);
        const text = path !== undefined ? await readLink(path) : undefined;
        if (text !== undefined)
          attached.push(attachedFile(shownPath(block.uri, projectDir), text, lineRange(block.uri)));
        else typed.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      }
      case "audio":
        typed.push("[an audio clip, which attractor cannot send to the model]");
        break;
    }
  }
  const typedText = typed.join("\n");
  const text = attached.length > 0 ? `${attached.join("")}${MENTIONS_NOTE}${typedText}` : typedText;
  return { text, images, typed: typedText };
}

/**
 * An `<attached-file>` block as `@path` produces it: numbered lines (from the selection's first
 * line when the URI gives one), cut at the terminal's size limit.
 */
export function attachedFile(shown: string, content: string, from: number | undefined): string {
  const cut = content.length > MAX_ATTACHED_CHARS;
  const lines = (cut ? content.slice(0, MAX_ATTACHED_CHARS) : content).split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = from ?? 1;
  const body = lines.map((line, i) => `${first + i}\t${line}`).join("\n");
  const range = from !== undefined ? ` lines="${first}-${first + Math.max(lines.length - 1, 0)}"` : "";
  const tail = cut ? `\n… the file goes on past ${MAX_ATTACHED_CHARS / 1024} KB` : "";
  return `<attached-file path="${shown}"${range}>\n${body}${tail}\n</attached-file>\n`;
}

/** The local path of a `file:` URI (its fragment dropped); undefined for any other URI. */
export function filePath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return isAbsolute(uri) ? uri.replace(/#.*$/, "") : undefined;
  try {
    return fileURLToPath(uri.replace(/#.*$/, ""));
  } catch {
    return undefined;
  }
}

/**
 * The first line of a selection from its URI's fragment, as editors write it: `#L12`, `#L12-20`,
 * `#L12:20`, `#12`.
 */
export function lineRange(uri: string): number | undefined {
  const match = /#L?(\d+)(?:[-:,]L?\d+)?$/.exec(uri);
  return match ? Number(match[1]) : undefined;
}

/** A URI as the attached block names it: project-relative when the file is inside the project. */
function shownPath(uri: string, projectDir: string): string {
  const path = filePath(uri);
  if (path === undefined) return uri;
  const rel = relative(projectDir, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return path;
  return rel.split(sep).join("/");
}
