export type {
  AnswerSegment,
  WebSearcher,
  WebSearchFindings,
  WebSearchQuery,
  WebSearchSource,
} from "./findings.js";
export {
  type ModelWebSearcherOptions,
  modelWebSearcher,
  PROVIDERS_WITH_WEB_SEARCH,
  providerRunsWebSearch,
} from "./model-searcher.js";
export { type NumberedSource, type WebSearchReport, webSearchReport, webSearchReportText } from "./report.js";
export { type SearxngSearcherOptions, searxngWebSearcher } from "./searxng.js";
export {
  createProviderWebSearchTool,
  createWebSearchTool,
  type ProviderWebSearchToolOptions,
  WEB_SEARCH_TOOL,
  type WebSearchToolOptions,
} from "./tool.js";
