/** A FIFO of messages the host queued while the loop was busy. */
export class MessageQueue {
  private items: string[] = [];

  /** Appends a message. */
  push(message: string): void {
    this.items.push(message);
  }

  /** Removes and returns the oldest message, if any. */
  shift(): string | undefined {
    return this.items.shift();
  }

  /** Removes and returns every queued message, oldest first. */
  drain(): string[] {
    const all = this.items;
    this.items = [];
    return all;
  }

  get size(): number {
    return this.items.length;
  }

  /** Snapshot of the queue, oldest first. */
  peek(): readonly string[] {
    return [...this.items];
  }
}
