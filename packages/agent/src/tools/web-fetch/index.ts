export { type NonPublicKind, nonPublicKind } from "./address-check.js";
export { modelPageAnswerer, type PageAnswerer, type PageQuestion } from "./answer.js";
export { convertBody, htmlToMarkdown, type PageContent } from "./convert.js";
export {
  type FetchOutcome,
  type FetchPageOptions,
  fetchPage,
  type HostLookup,
  type NonPublicTarget,
  type ResolvedAddress,
  WebFetchError,
} from "./fetch-page.js";
export { createWebFetchTool, type PdfReader, type WebFetchToolOptions } from "./tool.js";
