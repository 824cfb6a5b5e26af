import { connect, type Socket } from "node:net";
import { Worker } from "node:worker_threads";

/** A loopback port where a TCP connect neither succeeds nor fails: it hangs until the client gives up. */
export interface UnacceptingListener {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  close(): Promise<void>;
}

// Node accepts every connection on its own as soon as its event loop runs, so the listening socket
// lives in a worker whose loop is then blocked for good: the kernel queues connections, nobody
// accepts them, and once the accept queue (backlog 1) is full, Linux drops further SYNs.
const LISTENER = `
const { createServer } = require("node:net");
const { parentPort } = require("node:worker_threads");
const server = createServer();
server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
  parentPort.postMessage(server.address().port);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;

/** Connections that fill the accept queue; more than the kernel keeps for backlog 1, to be sure. */
const FILLERS = 4;

/** Starts a listener on 127.0.0.1 that never accepts, with its accept queue already full. */
export async function startUnacceptingListener(): Promise<UnacceptingListener> {
  const worker = new Worker(LISTENER, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  const fillers: Socket[] = [];
  const queued: Promise<void>[] = [];
  for (let i = 0; i < FILLERS; i++) {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    fillers.push(socket);
    queued.push(new Promise((resolve) => socket.once("connect", () => resolve())));
  }
  // The kernel completes handshakes up to the queue's size; waiting for the first of them means
  // the queue has started filling before the caller's connect joins the SYNs that are dropped.
  await Promise.race(queued);
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of fillers) socket.destroy();
      // Terminating interrupts Atomics.wait; the worker's listening socket closes with it.
      await worker.terminate();
    },
  };
}
