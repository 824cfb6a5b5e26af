import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

/** Entries kept in memory and read back from the file. */
const MAX_ENTRIES = 500;

/**
 * The input history, browsed with ↑/↓ like a shell's and searched with Ctrl+R. Browsing starts
 * from the text being typed (the draft), which ↓ past the newest entry gives back. With a file,
 * entries persist across runs as JSON lines, each tagged with its project when one is given (a
 * project sees its own entries and untagged ones); a file that cannot be read or written only
 * loses persistence, never input.
 */
export class InputHistory {
  private entries: string[];
  /** Position while browsing: entries.length means "at the draft". */
  private position: number;
  private draft = "";

  constructor(
    private readonly file?: string,
    initial: readonly string[] = [],
    private readonly project?: string,
  ) {
    this.entries = [...(file ? readEntries(file, project) : []), ...initial].slice(-MAX_ENTRIES);
    this.position = this.entries.length;
  }

  /** All entries, oldest first. */
  all(): readonly string[] {
    return this.entries;
  }

  /** The entry before the one shown (older); undefined at the oldest. */
  previous(current: string): string | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.entries.length) this.draft = current;
    this.position--;
    return this.entries[this.position];
  }

  /** True while an entry (not the draft) is shown. */
  browsing(): boolean {
    return this.position < this.entries.length;
  }

  /** The entry after the one shown (newer), then the draft; undefined when already at the draft. */
  next(): string | undefined {
    if (this.position >= this.entries.length) return undefined;
    this.position++;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }

  /** Records a submitted input (not twice in a row) and stops browsing. */
  push(text: string): void {
    const entry = text.trim();
    if (entry !== "" && this.entries.at(-1) !== entry) {
      this.entries.push(entry);
      if (this.entries.length > MAX_ENTRIES) this.entries = this.entries.slice(-MAX_ENTRIES);
      if (this.file)
        appendEntry(this.file, this.project === undefined ? entry : { text: entry, project: this.project });
    }
    this.position = this.entries.length;
    this.draft = "";
  }

  /** The entries matching `query` (case-insensitively), newest first, each text once. */
  matches(query: string): string[] {
    const q = query.toLowerCase();
    const out = new Set<string>();
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i] as string;
      if (entry.toLowerCase().includes(q)) out.add(entry);
    }
    return [...out];
  }
}

function readEntries(file: string, project: string | undefined): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const value = JSON.parse(line);
      if (typeof value === "string") out.push(value);
      else if (typeof value?.text === "string" && (value.project === undefined || value.project === project))
        out.push(value.text);
    } catch {
      // A torn last line (killed mid-write) is skipped.
    }
  }
  return out.slice(-MAX_ENTRIES);
}

function appendEntry(file: string, entry: string | { text: string; project: string }): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  } catch {
    // History is a convenience: a read-only home must not break the prompt.
  }
}
