/**
 * Fetched pages by URL for a while (15 minutes by default), so asking a second question about a
 * page, or reading it again, does not fetch it again. Bounded in entries; the oldest goes first.
 */
export class PageCache<T> {
  private readonly entries = new Map<string, { readonly at: number; readonly value: T }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 64,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value stored for a key, unless older than the time to live. */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores a value, dropping the oldest entry when full. */
  set(key: string, value: T): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { at: this.now(), value });
  }
}
