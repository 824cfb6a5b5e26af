/** The process around a run; tests pass their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * False in a build without the terminal UI and the fleet (the headless command bundle): an
   * interactive run or `attractor fleet` then resolves to NEEDS_INTERACTIVE_UI before doing
   * anything, for the full build to run it.
   */
  readonly interactiveUi?: boolean;
  /** Called with a stop function while a headless task runs (main wires SIGINT/SIGTERM to it). */
  readonly onStoppable?: (stop: () => void) => void;
}
