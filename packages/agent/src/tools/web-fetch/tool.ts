import { type Static, Type } from "@sinclair/typebox";
import type { RegisteredTool, ToolOutput } from "../../types/tool.js";
import { defineBuiltinTool } from "../define-tool.js";
import { readPdfText } from "../pdf/read-pdf.js";
import type { PageAnswerer } from "./answer.js";
import { convertBody, type PageContent } from "./convert.js";
import { type FetchPageOptions, fetchPage, type HostLookup, type NonPublicTarget } from "./fetch-page.js";
import { PageCache } from "./page-cache.js";

/** Turns a PDF's bytes into what the model reads (a document part or its text), when the host can. */
export type PdfReader = (data: Uint8Array, url: string) => Promise<ToolOutput>;

export interface WebFetchToolOptions {
  /** Answers the call's question from the page in a side request; without it the page is returned. */
  readonly answer?: PageAnswerer;
  /**
   * Decides a fetch of a loopback, private or link-local address (checked after DNS resolution).
   * Without it such addresses are refused.
   */
  readonly allowNonPublic?: (target: NonPublicTarget) => boolean | Promise<boolean>;
  /** Resolves host names (DNS by default). */
  readonly lookup?: HostLookup;
  /** Body bytes read at most (default 10 MB); a longer page is cut and says so. */
  readonly maxBytes?: number;
  /** The whole fetch, redirects included (default 30 s). */
  readonly timeoutMs?: number;
  /** How long a fetched page is reused (default 15 minutes). */
  readonly cacheTtlMs?: number;
  /** Characters of the page a question's side request carries (default 100 000). */
  readonly maxQuestionChars?: number;
  /** Reads a fetched PDF (default: the text of its first 50 pages). */
  readonly readPdf?: PdfReader;
  /** Variables proxies are read from; the process's by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const parameters = Type.Object(
  {
    url: Type.String({ minLength: 1, description: "The http:// or https:// URL to fetch." }),
    question: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "What you want to know from the page. When given, the page is read in a separate request and only the answer comes back, which saves context; leave it out to get the page itself.",
      }),
    ),
  },
  { additionalProperties: false },
);
type WebFetchArgs = Static<typeof parameters>;

type Fetched =
  | {
      readonly kind: "page";
      readonly url: string;
      readonly status: number;
      readonly contentType: string;
      readonly bytes: number;
      readonly truncated: boolean;
      readonly content: PageContent;
    }
  | { readonly kind: "redirect"; readonly url: string; readonly location: string; readonly status: number };

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_TTL_MS = 15 * 60_000;
const DEFAULT_QUESTION_CHARS = 100_000;

function header(page: Extract<Fetched, { kind: "page" }>, what: string): string {
  const cut = page.truncated ? `, cut at ${page.bytes} bytes` : "";
  return `${page.url} (HTTP ${page.status}, ${page.contentType || "no content type"}, ${page.bytes} bytes${cut}) ${what}`;
}

/**
 * The `web_fetch` tool: GETs a URL and returns its content for the model (HTML as Markdown, JSON
 * and text as they are, images as images, PDFs through `readPdf`), or with a `question` only a
 * model's answer from it. A redirect to another host is reported, not followed. Pages are cached
 * for 15 minutes. Addresses off the public internet need `allowNonPublic`.
 */
export function createWebFetchTool(options: WebFetchToolOptions = {}): RegisteredTool {
  const cache = new PageCache<Fetched>(options.cacheTtlMs ?? DEFAULT_TTL_MS);
  const fetchOptions = (signal: AbortSignal | undefined): FetchPageOptions => ({
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRedirects: 5,
    ...(options.lookup !== undefined && { lookup: options.lookup }),
    ...(options.allowNonPublic !== undefined && { allowNonPublic: options.allowNonPublic }),
    ...(options.env !== undefined && { env: options.env }),
    ...(signal !== undefined && { signal }),
  });

  const load = async (url: string, signal: AbortSignal | undefined): Promise<Fetched> => {
    const cached = cache.get(url);
    if (cached !== undefined) return cached;
    const outcome = await fetchPage(url, fetchOptions(signal));
    const fetched: Fetched =
      outcome.kind === "redirect"
        ? outcome
        : {
            kind: "page",
            url: outcome.url,
            status: outcome.status,
            contentType: outcome.contentType,
            bytes: outcome.body.byteLength,
            truncated: outcome.truncated,
            content: await convertBody(outcome.body, outcome.contentType, outcome.url),
          };
    if (fetched.kind === "redirect" || (fetched.status >= 200 && fetched.status < 300))
      cache.set(url, fetched);
    return fetched;
  };

  return defineBuiltinTool({
    name: "web_fetch",
    description:
      "Fetch a web page by URL (http or https) and return its content: HTML as Markdown (main content, links kept), JSON and text as they are, images as images. Give a question to get only an answer drawn from the page instead of the whole page. A redirect to another host is reported, not followed: fetch the new URL yourself if it is the one you want. Pages are cached for 15 minutes. Read-only.",
    parameters,
    readOnly: true,
    execute: async (args: WebFetchArgs, ctx): Promise<ToolOutput> => {
      const fetched = await load(args.url, ctx.signal);
      if (fetched.kind === "redirect")
        return {
          output: `${fetched.url} redirects (HTTP ${fetched.status}) to another host: ${fetched.location}\nThe redirect was not followed. If that is the page you want, call web_fetch with that URL.`,
          details: { url: fetched.url, redirect: fetched.location, status: fetched.status },
        };
      const details = {
        url: fetched.url,
        status: fetched.status,
        contentType: fetched.contentType,
        bytes: fetched.bytes,
        ...(fetched.truncated && { truncated: true }),
      };
      const failed = fetched.status >= 400;
      const content = fetched.content;
      if (content.kind === "unsupported")
        return {
          output: header(fetched, `is ${content.reason}; it cannot be shown.`),
          isError: true,
          details,
        };
      if (content.kind === "image")
        return { output: header(fetched, "is an image:"), image: content.image, isError: failed, details };
      let pageText: string;
      let what: string;
      if (content.kind === "pdf") {
        const pdf = await (options.readPdf ?? readPdfText)(content.data, fetched.url);
        if (pdf.isError || args.question === undefined || options.answer === undefined)
          return { ...pdf, output: `${header(fetched, "is a PDF:")}\n\n${pdf.output}`, details };
        pageText = pdf.output;
        what = "as a PDF's text";
      } else {
        pageText = content.text;
        what = content.format === "markdown" ? "as Markdown" : `as ${content.format}`;
      }
      if (args.question !== undefined && options.answer !== undefined && !failed) {
        const max = options.maxQuestionChars ?? DEFAULT_QUESTION_CHARS;
        const text =
          pageText.length > max ? `${pageText.slice(0, max)}\n[… page cut at ${max} characters]` : pageText;
        const answer = await options.answer({
          url: fetched.url,
          question: args.question,
          content: text,
          ...(ctx.signal !== undefined && { signal: ctx.signal }),
        });
        return {
          output: `${header(fetched, "answers the question:")}\n\n${answer}`,
          details: { ...details, answered: true },
        };
      }
      const note =
        args.question !== undefined && options.answer === undefined && !failed
          ? "\n(No model is available to answer the question here, so the page itself follows.)"
          : "";
      const cut = fetched.truncated
        ? "\n[The page was longer than the size limit: only its start was read.]"
        : "";
      return {
        output: `${header(fetched, failed ? `failed; the server's answer ${what}:` : what)}${note}\n\n${pageText}${cut}`,
        isError: failed,
        details,
      };
    },
  });
}
