import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import {
  connectFleet,
  DEFAULT_QUEUE,
  type FleetConnection,
  fleetConnectionOptions,
  RedisUnreachableError,
} from "./connection.js";
import { requireDurableRedis } from "./durability.js";
import { fleetKeys } from "./keys.js";
import { type AttemptEnd, serveMetrics, workerMetrics } from "./metrics.js";
import { checkPolicy, effectiveMode, PolicyRefusal, type WorkerPolicy } from "./policy.js";
import { type ProviderProxy, startProviderProxy } from "./provider-proxy.js";
import { FORGE_TOKENS, PublishError, type Published, publishChanges } from "./publish.js";
import { openQueue } from "./queue.js";
import type { ProviderLimit } from "./rate-window.js";
import { type StoredResult, storeDir, storeResult } from "./result-store.js";
import { recordFinish } from "./run-counts.js";
import { type AttractorCommand, parentDeathSignalAvailable, runTask, type TaskOutcome } from "./run-task.js";
import type { FleetTask, QueuedTask } from "./task.js";
import {
  checkContainer,
  containerName,
  removeContainer,
  removeStaleContainers,
  setupArgv,
  startAgentContainer,
} from "./task-container.js";
import {
  type Isolation,
  IsolationUnavailableError,
  isolationFor,
  prepareTaskHome,
  runSetup,
  type TaskEnvironment,
  templateSettings,
} from "./task-environment.js";
import { startAttemptTracer } from "./tracing.js";
import { afterSetup, prepareWorkspace, removeStaleWorkspaces } from "./workspace.js";

export interface WorkerOptions extends FleetConnection {
  /** How to start attractor, e.g. [process.execPath, "/path/to/attractor.js"]. */
  readonly command: AttractorCommand;
  /** Tasks run at once by this worker (1). */
  readonly concurrency?: number;
  /** Stop once the queue has nothing waiting, delayed or running. */
  readonly exitWhenIdle?: boolean;
  /** Where workspaces are made (the system's temp directory). */
  readonly workRoot?: string;
  /** The result store directory: patches, transcripts, logs (see storeDir). */
  readonly store?: string;
  /** The environment tasks run with: provider keys and base URLs (process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** At most this many tasks start per minute across every worker of the queue (BullMQ's limiter). */
  readonly maxPerMinute?: number;
  /** How long the whole queue pauses after a provider answers 429 (30 000 ms). */
  readonly rateLimitBackoffMs?: number;
  /** A task whose worker stops renewing its lock this long is taken up again elsewhere (30 000 ms). */
  readonly lockDurationMs?: number;
  /** Run from a Redis that does not persist or may evict. */
  readonly allowVolatileRedis?: boolean;
  /** What tasks may ask for (anything by default). */
  readonly policy?: WorkerPolicy;
  /** Every task's environment: settings template, setup command, sandbox (see TaskEnvironment). */
  readonly environment?: TaskEnvironment;
  /**
   * Limits per model provider, in requests and tokens per minute, shared by every worker on this
   * Redis: each provider named gets a loopback proxy that the agent reaches it through, which also
   * holds the provider key in the agent's place (see startProviderProxy). A limit of `{}` only proxies.
   */
  readonly providerLimits?: Readonly<Record<string, ProviderLimit>>;
  /** The window provider limits count over (60 000 ms). */
  readonly providerLimitWindowMs?: number;
  /** Serve /metrics (Prometheus) and /healthz on this port. */
  readonly metricsPort?: number;
  /** The address the metrics server listens on (127.0.0.1). */
  readonly metricsHost?: string;
  /** With exitWhenIdle: give up (and reject) when Redis stays unreachable this long with nothing running (60 000 ms). */
  readonly unreachableTimeoutMs?: number;
  /** Stops the worker: no new task is taken, running ones are finished. */
  readonly signal?: AbortSignal;
  /** Stops the worker at once: running attempts are ended (their tasks go back to the queue). */
  readonly killSignal?: AbortSignal;
  /** Called after each task attempt. */
  readonly onOutcome?: (task: FleetTask, outcome: TaskOutcome | { status: "error"; error: string }) => void;
  /** Called with what the worker wants its operator to know (stale workspaces removed, missing safeguards). */
  readonly onNotice?: (message: string) => void;
}

/** A task attempt that failed, carrying what it produced for the failed job's record. */
class TaskFailedError extends Error {
  override readonly name = "TaskFailedError";
}

const CANCELLED = "cancelled by fleet cancel";
const LOCK_LOST = "the task's lock was lost (Redis lost it, or another worker took the task over)";

/** Variables a setup command never sees: keys and secrets are the agent's, not the setup's. */
const SECRET = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$|^REDIS_/i;

function setupEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && !SECRET.test(k) && k !== "ATTRACTOR_HOME") out[k] = v;
  return out;
}

/** The sandbox mode the agent is told to require: the template's, unless it is full access. */
const settingsMode = (settings: { sandbox?: { mode?: string } }): string =>
  settings.sandbox?.mode === "read-only" ? "read-only" : "workspace-write";

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([promise, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())]);

/**
 * Takes tasks from the queue and runs each in a fresh workspace until stopped (or, with
 * exitWhenIdle, until the queue is empty). Reliability is BullMQ's: a worker that dies holding a
 * task loses its lock and the task is run again by another worker; a task that fails is retried
 * up to its attempts; a provider's 429 pauses the whole queue instead of failing the task. Each
 * finished task's patch, transcript and log go to the result store, its outcome to Redis. A task
 * the policy does not allow fails at once with the reason. Refuses (VolatileRedisError) a Redis
 * that would lose tasks unless allowVolatileRedis. Resolves with the number of attempts this
 * worker ran.
 */
export async function runWorker(options: WorkerOptions): Promise<{ attempts: number }> {
  const name = options.queue ?? DEFAULT_QUEUE;
  const env = options.env ?? process.env;
  const connection = fleetConnectionOptions(options, env);
  const redis = await connectFleet(options, env);
  const keys = fleetKeys(name);
  const store = storeDir(options.store, env);
  const policy = options.policy ?? {};
  const environment = options.environment ?? {};
  const workRoot = options.workRoot ?? join(tmpdir(), "attractor-fleet");
  const backoff = options.rateLimitBackoffMs ?? 30_000;
  const metrics = workerMetrics(name);
  const proxies: ProviderProxy[] = [];
  try {
    await requireDurableRedis(redis, options.allowVolatileRedis ?? false);
    for (const [provider, limit] of Object.entries(options.providerLimits ?? {}))
      proxies.push(
        await startProviderProxy({
          provider,
          env,
          redis,
          limit,
          ...(options.providerLimitWindowMs !== undefined && { windowMs: options.providerLimitWindowMs }),
          onAnswer: (a) => metrics.provider(a.provider, a.heldMs, a.tokens),
          onUncounted: (p, tokens) => metrics.uncounted(p, tokens),
        }),
      );
  } catch (error) {
    await Promise.all(proxies.map((p) => p.close()));
    redis.disconnect();
    throw error;
  }
  const container = environment.container;
  const runtimeEnv = setupEnv(env);
  if (container !== undefined) {
    try {
      await checkContainer(container, runtimeEnv);
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    const left = await removeStaleContainers(container, runtimeEnv);
    if (left > 0)
      options.onNotice?.(`removed ${left} container${left === 1 ? "" : "s"} left by a dead worker`);
  }
  const tracer = await startAttemptTracer(env);
  // What the agents get: the worker's environment, with each proxied provider's base URL and key replaced.
  const taskEnv: Record<string, string | undefined> = { ...env };
  for (const proxy of proxies) Object.assign(taskEnv, proxy.agentEnv);
  // The token that opens pull requests is the worker's: the agent does not get it.
  if (policy.push === true) for (const v of FORGE_TOKENS) delete taskEnv[v];
  const stale = await removeStaleWorkspaces(workRoot);
  if (stale > 0)
    options.onNotice?.(`removed ${stale} workspace${stale === 1 ? "" : "s"} left by a dead worker`);
  if (!parentDeathSignalAvailable())
    options.onNotice?.(
      "setpriv (util-linux) is missing: an agent outlives this worker if it is killed outright",
    );
  const queue = openQueue(name, connection);
  let attempts = 0;
  const running = new Set<string>();
  // Healthy while Redis answers: a worker cut off from it is restarted by its supervisor's probe.
  let lastPong = Date.now();
  const pinger = setInterval(() => {
    void withTimeout(redis.ping(), 5_000)
      .then((pong) => {
        if (pong === "PONG") lastPong = Date.now();
      })
      .catch(() => undefined);
  }, 10_000);
  pinger.unref();
  const server =
    options.metricsPort === undefined
      ? undefined
      : await serveMetrics(
          options.metricsHost ?? "127.0.0.1",
          options.metricsPort,
          () => metrics.text(queue, running.size),
          () => Date.now() - lastPong < 45_000,
        );

  /** Records how a task ended, where status and results read it; the store first. */
  const finish = async (job: Job<QueuedTask, TaskOutcome>, record: StoredResult, outcome?: TaskOutcome) => {
    const dir = await storeResult(store, name, record, {
      patch: outcome?.patch ?? "",
      ...(outcome?.transcript !== undefined && { transcript: outcome.transcript }),
      ...(outcome?.log !== undefined && { log: outcome.log }),
    });
    await recordFinish(redis, name, {
      id: record.id,
      run: job.data.run,
      status: record.status,
      ...(record.error !== undefined && { error: record.error }),
    });
    return { dir, job: job.id };
  };

  const recordOf = (
    task: QueuedTask,
    status: StoredResult["status"],
    tries: number,
    outcome: TaskOutcome | undefined,
    error: string | undefined,
    isolation?: Isolation,
  ): StoredResult => ({
    id: task.id,
    run: task.run,
    status,
    attempts: tries,
    result: outcome?.result ?? "",
    usage: outcome?.usage ?? {},
    cost_usd: outcome?.cost_usd ?? null,
    turns: outcome?.turns ?? 0,
    duration_ms: outcome?.duration_ms ?? 0,
    ...(outcome?.session_id !== undefined && { session_id: outcome.session_id }),
    ...(error !== undefined && { error }),
    finished_at: new Date().toISOString(),
    ...(isolation !== undefined && { isolation: isolation.description }),
  });

  const worker = new Worker<QueuedTask, unknown>(
    name,
    async (job: Job<QueuedTask, unknown>, _token?: string, signal?: AbortSignal) => {
      attempts++;
      const task = job.data;
      const typed = job as unknown as Job<QueuedTask, TaskOutcome>;
      const startedAt = Date.now();
      const tries = await redis.hincrby(keys.attempts, task.id, 1);
      /** Counts the attempt's end in the metrics and, when tracing, exports its trace. */
      const ended = (end: AttemptEnd, outcome?: TaskOutcome, error?: string) => {
        metrics.record(end, outcome);
        tracer?.record({
          task,
          queue: name,
          attempt: tries,
          end,
          startedAt,
          endedAt: Date.now(),
          ...(outcome !== undefined && { outcome }),
          ...(error !== undefined && { error }),
        });
      };
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if ((await redis.sismember(keys.cancel, task.id)) === 1) {
        await finish(typed, recordOf(task, "cancelled", tries, undefined, CANCELLED));
        ended("cancelled", undefined, CANCELLED);
        throw new UnrecoverableError(CANCELLED);
      }
      const settings = await templateSettings(environment);
      let isolation: Isolation;
      try {
        checkPolicy(task, policy);
        isolation = isolationFor(task, environment, settings);
      } catch (error) {
        if (!(error instanceof PolicyRefusal || error instanceof IsolationUnavailableError)) throw error;
        options.onOutcome?.(task, { status: "error", error: error.message });
        await finish(typed, recordOf(task, "failed", tries, undefined, error.message));
        ended("refused", undefined, error.message);
        throw new UnrecoverableError(error.message);
      }
      running.add(task.id);
      try {
        const workspace = await prepareWorkspace(workRoot, task.repo, task.ref).catch(
          async (error: Error) => {
            options.onOutcome?.(task, { status: "error", error: error.message });
            if (last) await finish(typed, recordOf(task, "failed", tries, undefined, error.message));
            ended("failed", undefined, error.message);
            throw error;
          },
        );
        try {
          const setupLog = await prepareTaskHome(workspace.home, environment, settings, isolation)
            .then(() =>
              runSetup(
                [environment.setup, task.setup].filter((c): c is string => c !== undefined),
                workspace.dir,
                setupEnv(env),
                signal,
                container && {
                  argv: (command) => {
                    const name = containerName();
                    return {
                      argv: setupArgv(container, name, workspace.dir, command, setupEnv(env)),
                      stop: () => removeContainer(container, name, runtimeEnv),
                    };
                  },
                },
              ),
            )
            .catch(async (error: Error) => {
              options.onOutcome?.(task, { status: "error", error: error.message });
              if (last)
                await finish(typed, recordOf(task, "failed", tries, undefined, error.message, isolation));
              ended("failed", undefined, error.message);
              throw error;
            });
          const agentContainer =
            container &&
            (await startAgentContainer(container, workspace.dir, isolation.network, runtimeEnv).catch(
              async (error: Error) => {
                options.onOutcome?.(task, { status: "error", error: error.message });
                if (last)
                  await finish(typed, recordOf(task, "failed", tries, undefined, error.message, isolation));
                ended("failed", undefined, error.message);
                throw error;
              },
            ));
          const ran = await runTask(
            task,
            setupLog === "" ? workspace : await afterSetup(workspace),
            options.command,
            taskEnv,
            signal,
            effectiveMode(task, policy),
            container !== undefined && agentContainer !== undefined
              ? ["--container", agentContainer, "--container-runtime", container.runtime]
              : isolation.sandbox && (task.isolation === "sandbox" || environment.requireSandbox === true)
                ? ["--sandbox", settingsMode(settings)]
                : [],
          ).finally(() =>
            container !== undefined && agentContainer !== undefined
              ? removeContainer(container, agentContainer, runtimeEnv)
              : undefined,
          );
          const outcome: TaskOutcome = setupLog === "" ? ran : { ...ran, log: `${setupLog}${ran.log ?? ""}` };
          options.onOutcome?.(task, outcome);
          if (signal?.aborted && signal.reason === CANCELLED) {
            await finish(typed, recordOf(task, "cancelled", tries, outcome, CANCELLED, isolation), outcome);
            ended("cancelled", outcome, CANCELLED);
            throw new UnrecoverableError(CANCELLED);
          }
          // The lock is gone: another worker owns the task now (or Redis lost it); record nothing.
          if (signal?.aborted) {
            ended("lost_lock", outcome, String(signal.reason ?? "stopped"));
            throw new TaskFailedError(String(signal.reason ?? "stopped"));
          }
          let published: Published = {};
          if (outcome.status === "completed" && task.output !== undefined) {
            try {
              published = await publishChanges({
                task,
                run: task.run,
                output: task.output,
                workspace,
                patch: outcome.patch,
                answer: outcome.result,
                env,
              });
            } catch (error) {
              if (!(error instanceof PublishError)) throw error;
              // The task asked for a branch it did not get: not a success.
              if (last)
                await finish(
                  typed,
                  recordOf(task, "failed", tries, outcome, error.message, isolation),
                  outcome,
                );
              ended("failed", outcome, error.message);
              throw new TaskFailedError(error.message);
            }
          }
          if (outcome.status === "completed") {
            const ref = await finish(
              typed,
              {
                ...recordOf(task, "completed", tries, outcome, undefined, isolation),
                ...(published.branch !== undefined && { branch: published.branch }),
                ...(published.pullRequest !== undefined && { pull_request: published.pullRequest }),
              },
              outcome,
            );
            ended("completed", outcome);
            // Redis keeps a reference and the small fields; the answer, patch, transcript and log
            // stay in the store (a job's fields under 1 KiB keep its hash compact in Redis).
            const { patch: _p, transcript: _t, log: _l, result: _r, ...small } = outcome;
            return { ...small, stored: ref.dir };
          }
          if (outcome.error?.status_code === 429) {
            // The provider is saturated: the whole queue waits, and this attempt does not count.
            await redis.hincrby(keys.attempts, task.id, -1);
            ended("rate_limited", outcome);
            await queue.rateLimit(backoff);
            throw Worker.RateLimitError();
          }
          const message = outcome.error?.message ?? "the task failed";
          if (last)
            await finish(typed, recordOf(task, "failed", tries, outcome, message, isolation), outcome);
          ended("failed", outcome, message);
          throw new TaskFailedError(message);
        } finally {
          await workspace.remove();
        }
      } finally {
        running.delete(task.id);
      }
    },
    {
      connection,
      concurrency: Math.max(1, options.concurrency ?? 1),
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: Math.max(1_000, Math.floor((options.lockDurationMs ?? 30_000) / 2)),
      maxStalledCount: 2,
      ...(options.maxPerMinute !== undefined && { limiter: { max: options.maxPerMinute, duration: 60_000 } }),
    },
  );
  worker.on("error", () => {
    // Connection trouble is retried by the client; jobs are not affected.
  });
  // A lock that cannot be renewed means the task is no longer ours: end its agent now rather than
  // run on beside the worker that takes it over (or for a task Redis has forgotten).
  worker.on("lockRenewalFailed", (ids: string[]) => {
    for (const id of ids) worker.cancelJob(id, LOCK_LOST);
  });
  // Tasks cancelled while running here: polled, since the cancel may come from any machine.
  let polling = false;
  const cancelPoll = setInterval(async () => {
    if (polling || running.size === 0) return;
    polling = true;
    try {
      const ids = [...running];
      const flags = (await withTimeout(redis.smismember(keys.cancel, ...ids), 5_000)) ?? [];
      ids.forEach((id, i) => {
        if (flags[i] === 1) worker.cancelJob(id, CANCELLED);
      });
    } catch {
      // Redis away: try again at the next tick.
    } finally {
      polling = false;
    }
  }, 1_000);

  let failure: Error | undefined;
  const closed = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async (now: boolean) => {
      if (now) worker.cancelAllJobs("the worker was stopped");
      if (stopping) return;
      stopping = true;
      clearInterval(cancelPoll);
      clearInterval(pinger);
      server?.close();
      // Running tasks finish first (or end at once when `now`); closing the clients is bounded so
      // a Redis that does not answer cannot hold the worker.
      const drained = worker.close();
      while (running.size > 0) await new Promise((r) => setTimeout(r, 100));
      await withTimeout(drained, 5_000);
      await withTimeout(queue.close(), 2_000);
      await Promise.all(proxies.map((p) => p.close()));
      await withTimeout(tracer?.close() ?? Promise.resolve(), 5_000).catch(() => undefined);
      redis.disconnect();
      void worker.disconnect().catch(() => undefined);
      resolve();
    };
    options.signal?.addEventListener("abort", () => void stop(false), { once: true });
    options.killSignal?.addEventListener("abort", () => void stop(true), { once: true });
    if (options.exitWhenIdle) {
      let checking = false;
      let unreachableSince: number | undefined;
      const limit = options.unreachableTimeoutMs ?? 60_000;
      const poll = setInterval(async () => {
        if (checking || stopping) return;
        checking = true;
        try {
          const counts = await withTimeout(
            queue.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children"),
            2_000,
          ).catch(() => undefined);
          if (counts === undefined) {
            unreachableSince ??= Date.now();
            if (running.size === 0 && Date.now() - unreachableSince > limit) {
              clearInterval(poll);
              failure = new RedisUnreachableError(
                `Redis did not answer for ${Math.round(limit / 1000)} s while this worker was idle`,
              );
              await stop(false);
            }
            return;
          }
          unreachableSince = undefined;
          if (running.size === 0 && Object.values(counts).every((n) => n === 0)) {
            clearInterval(poll);
            await stop(false);
          }
        } finally {
          checking = false;
        }
      }, 500);
    }
  });
  await closed;
  if (failure) throw failure;
  return { attempts };
}
