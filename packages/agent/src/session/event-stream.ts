/**
 * A multi-consumer event channel. Each iterator sees every event emitted from the moment it
 * attached; nothing is buffered for consumers that do not exist, so an unobserved session keeps
 * no event history. Synchronous listeners (subscribe) get events inline, for hosts that only log.
 */
export class EventStream<E> {
  private readonly listeners = new Set<(event: E) => void>();
  private readonly cursors = new Set<Cursor<E>>();
  private closed = false;

  /** Delivers an event to every listener and iterator; a throwing listener is ignored. */
  emit(event: E): void {
    if (this.closed) return;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A host's faulty listener must not break the loop that emits.
      }
    }
    for (const cursor of this.cursors) cursor.push(event);
  }

  /** Ends the stream: iterators finish after draining what they already hold. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cursor of this.cursors) cursor.end();
    this.cursors.clear();
    this.listeners.clear();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Calls listener for each later event; returns the function that unsubscribes. */
  subscribe(listener: (event: E) => void): () => void {
    if (this.closed) return () => {};
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An iterator over the events emitted from now on, ending when the stream closes. */
  iterate(): AsyncIterableIterator<E> {
    const cursor = new Cursor<E>(() => this.cursors.delete(cursor));
    if (this.closed) cursor.end();
    else this.cursors.add(cursor);
    return cursor;
  }
}

class Cursor<E> implements AsyncIterableIterator<E> {
  private queue: E[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<E>) => void) | undefined;
  private done = false;

  constructor(private readonly detach: () => void) {}

  push(event: E): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
  }

  end(): void {
    this.done = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<E>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++] as E;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<E>> {
    this.queue = [];
    this.head = 0;
    this.end();
    this.detach();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<E> {
    return this;
  }
}
