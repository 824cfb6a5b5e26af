import type { Redis } from "ioredis";
import { fleetKeys } from "./keys.js";
import type { Final } from "./run-states.js";

// Each run keeps its counts of finished tasks by outcome, the set of its tasks still open and its
// failed tasks, updated in the same script that records a task's outcome, so `fleet status` reads
// a few small keys instead of one field per task. Status cross-checks the counts against the
// run's total and reads every task when they disagree (a Redis that lost part of its data).

const jobPrefix = (queue: string) => `bull:${queue}:`;

/**
 * KEYS: outcome, runs-of, counts, open, failed. ARGV: run, job key prefix, now, reset ("1" on the
 * first batch), total, created_at, ids…
 * A task already final is counted at once; an open one joins the run's open set, and when its job
 * is on the queue already (queued by an earlier run) the run is noted in runs-of, so that the
 * task's finish reaches this run's counts too.
 */
const REGISTER = `
local outcome, runsOf, counts, open, failed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local run, prefix, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
if ARGV[4] == '1' then
  redis.call('DEL', counts, open, failed)
  redis.call('HSET', counts, 'total', ARGV[5], 'created_at', ARGV[6], 'completed', 0, 'failed', 0, 'cancelled', 0)
end
for i = 7, #ARGV do
  local id = ARGV[i]
  local o = redis.call('HGET', outcome, id)
  if o == 'completed' or o == 'failed' or o == 'cancelled' then
    redis.call('HINCRBY', counts, o, 1)
    if o == 'failed' then redis.call('ZADD', failed, now, id) end
  else
    redis.call('SADD', open, id)
    if redis.call('EXISTS', prefix .. id) == 1 then
      local cur = redis.call('HGET', runsOf, id)
      if not cur then
        redis.call('HSET', runsOf, id, run)
      else
        local seen = false
        for r in string.gmatch(cur, '[^\\n]+') do if r == run then seen = true end end
        if not seen then redis.call('HSET', runsOf, id, cur .. '\\n' .. run) end
      end
    end
  end
end
return 1
`;

/**
 * KEYS: outcome, error, finished, runs-of. ARGV: id, status, error ("" for none), now, key base
 * of the queue's fleet keys, the run that queued the task.
 * Records the outcome and moves the task, in every run listing it, from open to its outcome's
 * count (or from its old outcome's count, when a final outcome changes).
 */
const FINISH = `
local outcome, errors, finished, runsOf = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, status, err, now, base, first = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local old = redis.call('HGET', outcome, id)
redis.call('HSET', outcome, id, status)
redis.call('ZADD', finished, now, id)
-- The rate looks five minutes back; an hour of finishes is plenty.
redis.call('ZREMRANGEBYSCORE', finished, '-inf', now - 3600000)
if err ~= '' then redis.call('HSET', errors, id, err) else redis.call('HDEL', errors, id) end
if old == status then return 0 end
local wasFinal = old == 'completed' or old == 'failed' or old == 'cancelled'
local runs, seen = {}, {}
if first ~= '' then runs[1] = first; seen[first] = true end
local more = redis.call('HGET', runsOf, id)
if more then
  for r in string.gmatch(more, '[^\\n]+') do
    if not seen[r] then seen[r] = true; runs[#runs + 1] = r end
  end
end
for _, run in ipairs(runs) do
  local counts = base .. ':run:' .. run .. ':counts'
  local failed = base .. ':run:' .. run .. ':failed'
  if redis.call('EXISTS', counts) == 1 then
    local moved = false
    if wasFinal then
      redis.call('HINCRBY', counts, old, -1)
      redis.call('ZREM', failed, id)
      moved = true
    elseif redis.call('SREM', base .. ':run:' .. run .. ':open', id) == 1 then
      moved = true
    end
    if moved then
      redis.call('HINCRBY', counts, status, 1)
      if status == 'failed' then redis.call('ZADD', failed, now, id) end
    end
  end
end
return 1
`;

/**
 * KEYS: open, outcome. ARGV: job key prefix.
 * The run's open tasks that are not simply queued: [id, state] pairs, state a final outcome the
 * counts missed or "gone" (no outcome, no job); and the number still queued.
 */
const OPEN_STATES = `
local ids = redis.call('SMEMBERS', KEYS[1])
local queued, odd = 0, {}
for _, id in ipairs(ids) do
  local o = redis.call('HGET', KEYS[2], id)
  if o == 'completed' or o == 'failed' or o == 'cancelled' then
    odd[#odd + 1] = id; odd[#odd + 1] = o
  elseif redis.call('EXISTS', ARGV[1] .. id) == 1 then
    queued = queued + 1
  else
    odd[#odd + 1] = id; odd[#odd + 1] = 'gone'
  end
end
return {queued, odd}
`;

const BATCH = 500;

/**
 * Starts a run's counts: its total and creation time, its tasks already finished counted, the
 * others open. Idempotent for a run id submitted again (the counts are rebuilt).
 */
export async function registerRun(
  redis: Redis,
  queue: string,
  run: { readonly id: string; readonly created_at: string; readonly tasks: readonly string[] },
): Promise<void> {
  const keys = fleetKeys(queue);
  const batches: string[][] = [];
  for (let i = 0; i < run.tasks.length; i += BATCH) batches.push(run.tasks.slice(i, i + BATCH));
  if (batches.length === 0) batches.push([]);
  for (const [i, ids] of batches.entries())
    await redis.eval(
      REGISTER,
      5,
      keys.outcome,
      keys.runsOf,
      keys.runCounts(run.id),
      keys.runOpen(run.id),
      keys.runFailed(run.id),
      run.id,
      jobPrefix(queue),
      Date.now(),
      i === 0 ? "1" : "0",
      run.tasks.length,
      run.created_at,
      ...ids,
    );
}

/** Records how a task ended (its outcome, error and finish time) and moves it in its runs' counts, atomically. */
export async function recordFinish(
  redis: Redis,
  queue: string,
  finish: { readonly id: string; readonly run: string; readonly status: Final; readonly error?: string },
): Promise<void> {
  const keys = fleetKeys(queue);
  await redis.eval(
    FINISH,
    4,
    keys.outcome,
    keys.error,
    keys.finished,
    keys.runsOf,
    finish.id,
    finish.status,
    (finish.error ?? "").slice(0, 2_000),
    Date.now(),
    `attractor-fleet:${queue}`,
    finish.run,
  );
}

/** A run's counts as kept in Redis, or undefined when Redis has none (an older run, or lost). */
export interface RunCounts {
  readonly total: number;
  readonly createdAt: string;
  readonly completed: number;
  readonly failed: number;
  readonly cancelled: number;
  /** Open tasks whose job is on the queue. */
  readonly queued: number;
  /** Open tasks the counts have not caught up with: a final outcome, or `gone` (no outcome, no job). */
  readonly odd: readonly { readonly id: string; readonly state: Final | "gone" }[];
  /** Some failed tasks (the first 50 by time) with their errors. */
  readonly failures: readonly { readonly id: string; readonly error: string }[];
}

/**
 * Reads a run's counts in two round trips whatever the number of finished tasks (the open tasks
 * are looked at one by one inside Redis). Undefined when the run has no counts, or when they do
 * not add up to its total (Redis lost part of its data): the caller then reads every task.
 */
export async function readRunCounts(
  redis: Redis,
  queue: string,
  run: string,
): Promise<RunCounts | undefined> {
  const keys = fleetKeys(queue);
  const replies =
    (await redis
      .pipeline()
      .hgetall(keys.runCounts(run))
      .eval(OPEN_STATES, 2, keys.runOpen(run), keys.outcome, jobPrefix(queue))
      .zrange(keys.runFailed(run), "0", "49")
      .exec()) ?? [];
  if (replies.length !== 3 || replies.some(([error]) => error !== null)) return undefined;
  const [[, countsReply], [, openReply], [, failedReply]] = replies as [
    [null, Record<string, string>],
    [null, [number, string[]]],
    [null, string[]],
  ];
  const counts = countsReply;
  if (counts.total === undefined || counts.created_at === undefined) return undefined;
  const [queued, flat] = openReply;
  const odd: { id: string; state: Final | "gone" }[] = [];
  for (let i = 0; i < flat.length; i += 2)
    odd.push({ id: flat[i] as string, state: flat[i + 1] as Final | "gone" });
  const n = (k: string) => Number(counts[k] ?? 0);
  if (n("completed") + n("failed") + n("cancelled") + queued + odd.length !== n("total")) return undefined;
  const failedIds = [...failedReply, ...odd.flatMap((o) => (o.state === "failed" ? [o.id] : []))].slice(
    0,
    50,
  );
  const errors = failedIds.length === 0 ? [] : await redis.hmget(keys.error, ...failedIds);
  return {
    total: n("total"),
    createdAt: counts.created_at,
    completed: n("completed"),
    failed: n("failed"),
    cancelled: n("cancelled"),
    queued,
    odd,
    failures: failedIds.map((id, i) => ({ id, error: errors[i] ?? "failed" })),
  };
}

/** Removes a run's counts. */
export async function forgetRunCounts(redis: Redis, queue: string, run: string): Promise<void> {
  const keys = fleetKeys(queue);
  await redis.del(keys.runCounts(run), keys.runOpen(run), keys.runFailed(run));
}
