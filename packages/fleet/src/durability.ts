import type { Redis } from "ioredis";

/** Redis would lose tasks: it keeps nothing across a restart, or evicts keys under memory pressure. */
export class VolatileRedisError extends Error {
  override readonly name = "VolatileRedisError";
  constructor(readonly problems: readonly string[]) {
    super(
      `this Redis can lose tasks: ${problems.join("; ")}. Turn on the append-only file (appendonly yes) and maxmemory-policy noeviction, or pass --allow-volatile-redis to accept the risk`,
    );
  }
}

const configValue = async (redis: Redis, name: string): Promise<string | undefined> => {
  const reply = (await redis.call("CONFIG", "GET", name)) as string[];
  return reply[1];
};

const infoField = (info: string, name: string): string | undefined =>
  new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();

/**
 * What makes this Redis lose tasks, empty when nothing: no persistence (neither append-only file
 * nor RDB snapshots configured) or an eviction policy other than noeviction. Reads CONFIG, or
 * INFO where CONFIG is refused (managed services); a setting neither can show counts as a problem.
 */
export async function redisDurabilityProblems(redis: Redis): Promise<string[]> {
  let appendonly: string | undefined;
  let save: string | undefined;
  let policy: string | undefined;
  try {
    appendonly = await configValue(redis, "appendonly");
    save = await configValue(redis, "save");
    policy = await configValue(redis, "maxmemory-policy");
  } catch {
    const info = String(await redis.call("INFO", "all"));
    appendonly = infoField(info, "aof_enabled") === "1" ? "yes" : undefined;
    policy = infoField(info, "maxmemory_policy");
  }
  const problems: string[] = [];
  if (appendonly !== "yes" && (save === undefined || save.trim() === ""))
    problems.push(
      save === undefined && appendonly === undefined
        ? "its persistence settings cannot be read"
        : "it does not persist (appendonly no, no save schedule): a restart empties it",
    );
  if (policy === undefined) problems.push("its eviction policy cannot be read");
  else if (policy !== "noeviction") problems.push(`maxmemory-policy is ${policy}: it may evict queued tasks`);
  return problems;
}

/** Throws VolatileRedisError unless the Redis persists and never evicts (or `allow` says to go on). */
export async function requireDurableRedis(redis: Redis, allow: boolean): Promise<void> {
  if (allow) return;
  const problems = await redisDurabilityProblems(redis);
  if (problems.length > 0) throw new VolatileRedisError(problems);
}
