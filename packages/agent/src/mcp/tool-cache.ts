import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { McpServerConfig, McpStdioServerConfig } from "./types.js";

/** What a server offered when it last connected: enough to offer its tools before it is up. */
export interface McpCachedServer {
  /** The server's name and version from `initialize`; a different version replaces the entry. */
  readonly serverName?: string;
  readonly serverVersion?: string;
  readonly tools: readonly Readonly<Record<string, unknown>>[];
  readonly prompts: readonly Readonly<Record<string, unknown>>[];
  readonly hasResources: boolean;
  readonly instructions?: string;
}

/** Where tool lists are kept between runs, by serverCacheKey(). */
export interface McpToolCache {
  /** The entry, or undefined when there is none or it cannot be read. */
  get(key: string): Promise<McpCachedServer | undefined>;
  /** Stores the entry; failures are the cache's own business (a cache that cannot write stays empty). */
  set(key: string, entry: McpCachedServer): Promise<void>;
}

/** Entries larger than this are not stored (a server listing thousands of tools). */
const MAX_ENTRY_BYTES = 2_000_000;

/**
 * The key of a server's entry: a hash of everything that decides which program or endpoint
 * answers (command, arguments, environment, working directory; or URL and headers), so a changed
 * configuration never reuses another's tools and secrets in it are never written out.
 */
export function serverCacheKey(
  config: McpServerConfig,
  cwd: string | undefined,
  /** What else decides the lists: the capabilities the client declares (servers add tools for them). */
  client = "",
): string {
  const remote = config.type === "http" || config.type === "sse";
  const identity = remote
    ? { type: config.type, url: config.url, headers: config.headers ?? {} }
    : {
        type: "stdio",
        command: (config as McpStdioServerConfig).command,
        args: (config as McpStdioServerConfig).args ?? [],
        env: (config as McpStdioServerConfig).env ?? {},
        cwd: (config as McpStdioServerConfig).cwd ?? cwd ?? "",
      };
  return createHash("sha256")
    .update(JSON.stringify({ ...identity, client }))
    .digest("hex")
    .slice(0, 32);
}

function isEntry(value: unknown): value is McpCachedServer {
  const v = value as McpCachedServer | null;
  return (
    typeof v === "object" &&
    v !== null &&
    Array.isArray(v.tools) &&
    Array.isArray(v.prompts) &&
    typeof v.hasResources === "boolean" &&
    v.tools.every((t) => typeof t === "object" && t !== null && typeof t.name === "string")
  );
}

/** A cache of one JSON file per server in `dir` (created when first written; files 0600). */
export function fileToolCache(dir: string): McpToolCache {
  const file = (key: string) => join(dir, `${key.replace(/[^a-zA-Z0-9_-]/g, "_")}.json`);
  return {
    async get(key) {
      try {
        const parsed: unknown = JSON.parse(await readFile(file(key), "utf8"));
        return isEntry(parsed) ? parsed : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, entry) {
      const text = JSON.stringify(entry);
      if (text.length > MAX_ENTRY_BYTES) return;
      const target = file(key);
      // Written aside and renamed: a reader never sees half an entry.
      const temporary = `${target}.${randomBytes(4).toString("hex")}.tmp`;
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeFile(temporary, text, { mode: 0o600 });
        await rename(temporary, target);
      } catch {
        await rm(temporary, { force: true }).catch(() => {});
      }
    },
  };
}
