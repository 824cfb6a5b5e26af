export {
  createRunTracker,
  type ExitReason,
  type HeadlessResult,
  type RunTracker,
} from "@attractor/runtime";
export {
  createPrinter,
  type HeadlessPrinter,
  type NoticeLine,
  OUTPUT_FORMATS,
  type OutputFormat,
  type TextSink,
} from "./printers.js";
export { EXIT, HEADLESS_UI, type HeadlessOptions, runHeadless } from "./run-headless.js";
