import { createHash, createHmac } from "node:crypto";

/** One usable line of a known_hosts file. */
interface KnownHost {
  /** Host patterns (`host`, `[host]:port`, wildcards) or one hashed entry (`|1|salt|hash`). */
  readonly patterns: readonly string[];
  readonly keyType: string;
  readonly key: Buffer;
  readonly revoked: boolean;
}

/** Parses known_hosts text; comments, markers other than @revoked, and malformed lines are skipped. */
export function parseKnownHosts(text: string): KnownHost[] {
  const hosts: KnownHost[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const fields = line.split(/\s+/);
    let revoked = false;
    if (fields[0]?.startsWith("@")) {
      // @cert-authority lines vouch for certificates, which are not supported here.
      if (fields[0] !== "@revoked") continue;
      revoked = true;
      fields.shift();
    }
    const [patterns, keyType, key] = fields;
    if (!patterns || !keyType || !key) continue;
    hosts.push({ patterns: patterns.split(","), keyType, key: Buffer.from(key, "base64"), revoked });
  }
  return hosts;
}

/** How known_hosts names a host: `host` on port 22, `[host]:port` otherwise. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "i");
}

/** Whether one pattern of an entry names `name` (hashed entries compare HMAC-SHA1 digests). */
function patternMatches(pattern: string, name: string): boolean {
  if (pattern.startsWith("|1|")) {
    const [, , salt, hash] = pattern.split("|");
    if (!salt || !hash) return false;
    const digest = createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64");
    return digest === hash;
  }
  return globToRegExp(pattern).test(name);
}

/** Whether an entry applies to `name`: a positive pattern matches and no negated one does. */
function entryMatches(entry: KnownHost, name: string): boolean {
  let matched = false;
  for (const pattern of entry.patterns) {
    if (pattern.startsWith("!")) {
      if (patternMatches(pattern.slice(1), name)) return false;
    } else if (patternMatches(pattern, name)) matched = true;
  }
  return matched;
}

/** `SHA256:…` as ssh-keygen prints a key's fingerprint. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;
}

/** What known_hosts says of a key offered by `host:port`. */
export type HostKeyVerdict = "trusted" | "unknown" | "mismatch" | "revoked";

/**
 * Checks a server's host key (the raw SSH key blob) against known_hosts entries: trusted when an
 * entry for the host holds this very key, mismatch when entries for the host hold only other
 * keys, unknown when no entry names the host, revoked when a @revoked line lists the key.
 */
export function verifyHostKey(
  hosts: readonly KnownHost[],
  host: string,
  port: number,
  key: Buffer,
): HostKeyVerdict {
  const name = knownHostName(host, port);
  if (hosts.some((h) => h.revoked && h.key.equals(key))) return "revoked";
  const entries = hosts.filter((h) => !h.revoked && entryMatches(h, name));
  if (entries.length === 0) return "unknown";
  return entries.some((h) => h.key.equals(key)) ? "trusted" : "mismatch";
}
