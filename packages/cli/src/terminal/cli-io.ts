/** The process around a run; tests pass their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Called with a stop function while a headless task runs (main wires SIGINT/SIGTERM to it). */
  readonly onStoppable?: (stop: () => void) => void;
}
