import { TextDecoder } from "node:util";
import type { ImageData } from "@attractor/llm";
import { imageMediaType } from "../shared/image.js";

/** A fetched body as the model gets it: text (Markdown for HTML), or an image. */
export type PageContent =
  | { readonly kind: "text"; readonly text: string; readonly format: "markdown" | "json" | "text" }
  | { readonly kind: "image"; readonly image: ImageData; readonly bytes: number }
  | { readonly kind: "pdf"; readonly data: Uint8Array }
  | { readonly kind: "unsupported"; readonly reason: string };

type Libraries = {
  readonly parseHTML: typeof import("linkedom").parseHTML;
  readonly Readability: typeof import("@mozilla/readability").Readability;
  readonly Turndown: typeof import("turndown");
};
let libraries: Promise<Libraries> | undefined;
/** The HTML libraries load on the first page: a session that fetches nothing never parses them. */
const loadLibraries = (): Promise<Libraries> => {
  const unwrap = <T>(mod: T): T => ((mod as { default?: T }).default ?? mod) as T;
  libraries ??= Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")]).then(
    ([linkedom, readability, turndown]) => ({
      parseHTML: ("parseHTML" in linkedom ? linkedom : unwrap(linkedom)).parseHTML,
      Readability: ("Readability" in readability ? readability : unwrap(readability)).Readability,
      Turndown: ((turndown as { default?: unknown }).default ?? turndown) as typeof import("turndown"),
    }),
  );
  return libraries;
};

/** The charset a Content-Type names, when TextDecoder knows it; UTF-8 otherwise. */
function decoderFor(contentType: string): TextDecoder {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}

/**
 * HTML as Markdown: relative links made absolute against the page's URL, the main content picked
 * by Readability (the whole body when it finds no article), then converted by Turndown.
 */
export async function htmlToMarkdown(html: string, pageUrl: string): Promise<string> {
  const { parseHTML, Readability, Turndown } = await loadLibraries();
  const { document } = parseHTML(html);
  for (const [selector, attribute] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (value === null) continue;
      try {
        element.setAttribute(attribute, new URL(value, pageUrl).href);
      } catch {
        // A link that does not parse stays as written.
      }
    }
  }
  const title = document.querySelector("title")?.textContent?.trim() ?? "";
  const bodyHtml = document.body?.innerHTML ?? html;
  // Readability changes the document it reads: the fallback keeps the body as it was.
  const article = new Readability(
    document as unknown as ConstructorParameters<Libraries["Readability"]>[0],
  ).parse();
  const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript", "template"]);
  const main = article?.content ? article.content : bodyHtml;
  const markdown = turndown.turndown(main).trim();
  const heading = (article?.title || title).trim();
  return heading !== "" && !markdown.startsWith(`# ${heading}`) ? `# ${heading}\n\n${markdown}` : markdown;
}

const isHtml = (type: string) => /^(text\/html|application\/xhtml\+xml)\b/i.test(type);
const isJson = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type);
const isText = (type: string) =>
  /^text\//i.test(type) || /^application\/(xml|javascript|ecmascript|x-sh|toml|yaml|x-yaml)\b/i.test(type);

/**
 * Turns a body into what the model reads, by its Content-Type (sniffed when the server gave
 * none): HTML as Markdown, JSON and text as they are, PNG/JPEG/GIF/WebP as an image, PDF as its
 * bytes for the PDF path; anything else is unsupported with the reason.
 */
export async function convertBody(
  body: Uint8Array,
  contentType: string,
  pageUrl: string,
): Promise<PageContent> {
  const type = contentType.trim();
  const sniffedImage = imageMediaType(body.subarray(0, 16));
  if (/^image\//i.test(type) || (type === "" && sniffedImage !== undefined)) {
    if (sniffedImage === undefined)
      return {
        kind: "unsupported",
        reason: `an image of type ${type} (only PNG, JPEG, GIF and WebP are shown)`,
      };
    return {
      kind: "image",
      image: { data: Buffer.from(body).toString("base64"), mediaType: sniffedImage },
      bytes: body.byteLength,
    };
  }
  if (/^application\/pdf\b/i.test(type) || Buffer.from(body.subarray(0, 5)).toString("latin1") === "%PDF-")
    return { kind: "pdf", data: body };
  const text = decoderFor(type).decode(body);
  if (isHtml(type) || (type === "" && /^\s*(<!doctype html|<html)/i.test(text)))
    return { kind: "text", text: await htmlToMarkdown(text, pageUrl), format: "markdown" };
  if (isJson(type)) return { kind: "text", text, format: "json" };
  if (isText(type) || type === "") return { kind: "text", text, format: "text" };
  return { kind: "unsupported", reason: `content of type ${type}, which is not text` };
}
