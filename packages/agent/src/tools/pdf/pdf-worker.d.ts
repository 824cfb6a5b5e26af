// pdf.js ships no types for its worker module; loading it is all this package does with it.
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
