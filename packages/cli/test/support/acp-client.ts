import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  type Client,
  type ClientCapabilities,
  ClientSideConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type WriteTextFileRequest,
} from "@agentclientprotocol/sdk";
import { CLI_PATH } from "../../src/testing/index.js";

/** How the test's editor answers a permission request: by option kind, or cancelled. */
export type PermissionChoice = "allow_once" | "allow_always" | "reject_once" | "cancelled";

export interface EditorOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly args?: readonly string[];
  /** Offer fs/read_text_file and fs/write_text_file, backed by these buffers (path → text) over the disk. */
  readonly buffers?: Map<string, string>;
  /** Answers to permission requests, in order; "reject_once" once they run out. */
  readonly answers?: PermissionChoice[];
  /** Decides each permission request instead of `answers` (it may wait, as a user does). */
  readonly decide?: (request: RequestPermissionRequest) => Promise<PermissionChoice>;
}

/** An editor driving `attractor acp` over the child's stdio, recording what the agent sent. */
export interface TestEditor {
  readonly connection: ClientSideConnection;
  readonly child: ChildProcess;
  readonly capabilities: ClientCapabilities;
  /** Every session/update received, in order. */
  readonly notifications: SessionNotification[];
  readonly permissionRequests: RequestPermissionRequest[];
  readonly reads: ReadTextFileRequest[];
  readonly writes: WriteTextFileRequest[];
  /** What the agent wrote to stderr. */
  stderr(): string;
  /** Every line the agent wrote to stdout that was not a JSON-RPC message. */
  strayStdout(): string[];
  /** The updates of one session. */
  updates(sessionId: string): SessionUpdate[];
  /** Resolves with the first update (from now on, or already received) matching `test`. */
  waitFor(test: (update: SessionUpdate) => boolean, timeoutMs?: number): Promise<SessionUpdate>;
  close(): Promise<void>;
}

/** Starts the built `attractor acp` and connects to it as an editor (not yet initialized). */
export function startEditor(options: EditorOptions): TestEditor {
  const child = spawn(process.execPath, [CLI_PATH, "acp", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const stray: string[] = [];
  // A copy of stdout, checked line by line for anything that is not JSON-RPC.
  const stdout = child.stdout as Readable;
  let pending = "";
  stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      try {
        const message = JSON.parse(line) as { jsonrpc?: string };
        if (message.jsonrpc !== "2.0") stray.push(line);
      } catch {
        stray.push(line);
      }
    }
  });
  const notifications: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const reads: ReadTextFileRequest[] = [];
  const writes: WriteTextFileRequest[] = [];
  const waiters = new Set<{ test: (u: SessionUpdate) => boolean; resolve: (u: SessionUpdate) => void }>();
  const answers = [...(options.answers ?? [])];
  const buffers = options.buffers;

  const client: Client = {
    async requestPermission(params): Promise<RequestPermissionResponse> {
      permissionRequests.push(params);
      const choice = options.decide ? await options.decide(params) : (answers.shift() ?? "reject_once");
      if (choice === "cancelled") return { outcome: { outcome: "cancelled" } };
      const option = params.options.find((o) => o.kind === choice);
      if (!option) throw new Error(`the request offers no ${choice} option`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    },
    async sessionUpdate(params) {
      notifications.push(params);
      for (const waiter of waiters)
        if (waiter.test(params.update)) {
          waiters.delete(waiter);
          waiter.resolve(params.update);
        }
    },
    ...(buffers !== undefined && {
      async readTextFile(params: ReadTextFileRequest) {
        reads.push(params);
        const { readFile } = await import("node:fs/promises");
        const content = buffers.get(params.path) ?? (await readFile(params.path, "utf8"));
        return { content };
      },
      async writeTextFile(params: WriteTextFileRequest) {
        writes.push(params);
        buffers.set(params.path, params.content);
        return {};
      },
    }),
  };
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
  );
  const connection = new ClientSideConnection(() => client, stream);
  const capabilities: ClientCapabilities = {
    fs: { readTextFile: buffers !== undefined, writeTextFile: buffers !== undefined },
    terminal: false,
  };
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return {
    connection,
    child,
    capabilities,
    notifications,
    permissionRequests,
    reads,
    writes,
    stderr: () => stderr,
    strayStdout: () => stray,
    updates: (sessionId) => notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update),
    waitFor(test, timeoutMs = 15_000) {
      const found = notifications.find((n) => test(n.update));
      if (found) return Promise.resolve(found.update);
      return new Promise((resolve, reject) => {
        const waiter = { test, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter)) reject(new Error(`no matching update within ${timeoutMs} ms`));
        }, timeoutMs).unref();
      });
    },
    async close() {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Starts the agent and initializes the connection with the editor's capabilities. */
export async function connectEditor(options: EditorOptions): Promise<TestEditor> {
  const editor = startEditor(options);
  await editor.connection.initialize({
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: editor.capabilities,
    clientInfo: { name: "test-editor", version: "1.0.0" },
  });
  return editor;
}
