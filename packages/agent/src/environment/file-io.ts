import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";

/**
 * Reads lines [offset, offset + limit) (1-based) by streaming, stopping once the last wanted line
 * is read, so a huge file costs memory proportional to the lines returned. Lines are joined with
 * "\n" (no trailing newline).
 */
export async function readLines(path: string, offset: number, limit: number | undefined): Promise<string> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 64 * 1024 });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const out: string[] = [];
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (lineNo < offset) continue;
      if (limit !== undefined && out.length >= limit) break;
      out.push(line);
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return out.join("\n");
}

/** Reads a whole file as UTF-8. */
export function readWhole(path: string): Promise<string> {
  return readFile(path, "utf8");
}

/** Reads at most maxBytes from the start of a file. */
export async function readBytes(path: string, maxBytes: number | undefined): Promise<Uint8Array> {
  if (maxBytes === undefined) return new Uint8Array(await readFile(path));
  const handle = await open(path, "r");
  try {
    const buf = Buffer.alloc(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const { bytesRead } = await handle.read(buf, filled, maxBytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, filled);
  } finally {
    await handle.close();
  }
}

/**
 * Writes through a temp file in the same directory and renames it over the target, so readers
 * see the old or the new content and never a half-written file. Keeps an existing file's mode
 * and creates missing parent directories.
 */
export async function writeAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const mode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // open() applies the umask; restore the exact mode of the file being replaced.
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
