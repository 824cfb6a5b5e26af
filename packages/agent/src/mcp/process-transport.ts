import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { LongLivedProcess } from "../types/environment.js";
import { loadStdioFraming } from "./sdk.js";

/** Starts a server's process: the environment's startProcess (a sandbox, a remote host). */
export type McpProcessStarter = (
  command: string,
  args: readonly string[],
  options: { readonly workingDir?: string; readonly env?: Readonly<Record<string, string>> },
) => Promise<LongLivedProcess>;

/**
 * The stdio transport over a process someone else starts: newline-delimited JSON-RPC on its
 * stdin and stdout, as stdio servers speak it, with the SDK's own framing.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private process: LongLivedProcess | undefined;
  private closed = false;

  constructor(
    private readonly begin: () => Promise<LongLivedProcess>,
    /** Receives the process's stderr chunks. */
    private readonly onStderr: (chunk: Buffer) => void,
  ) {}

  /** The started process's id (of the sandbox's launcher, when sandboxed). */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  async start(): Promise<void> {
    const [{ ReadBuffer }, child] = await Promise.all([loadStdioFraming(), this.begin()]);
    this.process = child;
    const buffer = new ReadBuffer();
    child.stdout.on("data", (chunk: Buffer) => {
      buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => this.onStderr(chunk));
    void child.exited.then(() => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.process;
    if (!child) throw new Error("Not connected");
    const { serializeMessage } = await loadStdioFraming();
    await new Promise<void>((resolve, reject) => {
      const ok = child.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else child.stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.process;
    if (!child) return this.finish();
    child.stdin.end();
    child.kill();
    await child.exited;
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
