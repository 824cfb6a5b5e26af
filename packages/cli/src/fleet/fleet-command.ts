import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import type { CliIo } from "../terminal/cli-io.js";
import { formatStatus } from "./status-line.js";

const positiveInteger = (value: string): number => {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError("expected a whole number of at least 1.");
  return Number(value);
};

/** The options every fleet subcommand takes. */
interface Common {
  readonly redis?: string;
  readonly redisCa?: string;
  readonly queue?: string;
  readonly store?: string;
}

const common = (command: Command) =>
  command
    .option(
      "--redis <url>",
      "the Redis server, redis://[user:password@]host:port or rediss:// for TLS (default: $REDIS_URL, else redis://127.0.0.1:6379)",
    )
    .option("--redis-ca <file>", "PEM certificate authority of a rediss:// server (default: $REDIS_CA_FILE)")
    .option("--queue <name>", "the queue (default: attractor)")
    .option(
      "--store <dir>",
      "the result store: patches, transcripts, logs, run manifests (default: $ATTRACTOR_FLEET_STORE, else fleet/ in the attractor home)",
    );

const connection = (o: Common, io: CliIo) => ({
  ...(o.redis !== undefined && { redis: o.redis }),
  ...(o.redisCa !== undefined && { redisCaFile: resolve(io.cwd, o.redisCa) }),
  ...(o.queue !== undefined && { queue: o.queue }),
  ...(o.store !== undefined && { store: resolve(io.cwd, o.store) }),
  env: io.env,
});

const list = (value: string): string[] =>
  value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/** `PROVIDER[:requests=N][,tokens=N]`, per minute, collected into one record per provider. */
const providerLimit = (
  value: string,
  previous: Record<string, { requests?: number; tokens?: number }> = {},
): Record<string, { requests?: number; tokens?: number }> => {
  const m = /^([\w-]+)(?::(.*))?$/.exec(value.trim());
  if (m === null)
    throw new InvalidArgumentError(
      "expected PROVIDER[:requests=N,tokens=N], e.g. anthropic:requests=50,tokens=400000.",
    );
  const limit: { requests?: number; tokens?: number } = {};
  for (const part of list(m[2] ?? "")) {
    const kv = /^(requests|tokens)=(\d+)$/.exec(part);
    if (kv === null || Number(kv[2]) < 1)
      throw new InvalidArgumentError(
        `"${part}": expected requests=N or tokens=N (per minute, N at least 1).`,
      );
    limit[kv[1] as "requests" | "tokens"] = Number(kv[2]);
  }
  return { ...previous, [m[1] as string]: limit };
};

const seconds = (value: string): number => {
  const m = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (m === null) throw new InvalidArgumentError("expected a duration such as 90s, 30m, 12h or 7d.");
  return Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as "" | "s" | "m" | "h" | "d"];
};

/**
 * `attractor fleet submit|worker|status|results|transcript|cancel|clean`: many headless tasks on a
 * BullMQ queue in Redis. Resolves to the exit code: 0 done, 1 failures (a failed, cancelled or lost
 * task, a Redis that can lose tasks, a worker error), 2 bad usage or a bad task file.
 */
export async function runFleetCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  // Status and transcript load only what they read; the other commands load BullMQ.
  const quick = await import("@attractor/fleet/status");
  const full = () => import("@attractor/fleet");
  const program = new Command("attractor fleet")
    .description("Run many headless tasks across machines on a BullMQ queue in Redis.")
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) })
    .showHelpAfterError("(run attractor fleet --help for usage)");

  common(program.command("submit <file>").description("put the tasks of a JSONL file on the queue"))
    .option("--attempts <n>", "attempts per task before it fails (default 3)", positiveInteger)
    .option("--run <id>", "the run's id (default: a fresh one)")
    .option("--allow-volatile-redis", "submit even to a Redis that does not persist or may evict keys")
    .option(
      "--keep-finished <n>",
      "finished jobs kept in Redis (default 1000; results stay in the store)",
      positiveInteger,
    )
    .option("--keep-for <duration>", "and none older than this (default 7d)", seconds)
    .action(
      async (
        file: string,
        o: Common & {
          attempts?: number;
          run?: string;
          allowVolatileRedis?: boolean;
          keepFinished?: number;
          keepFor?: number;
        },
      ) => {
        const text = await readFile(resolve(io.cwd, file), "utf8").catch((error: Error) => {
          throw new UsageError(`cannot read ${file}: ${error.message}`);
        });
        const fleet = await full();
        const { tasks, errors } = fleet.parseTasks(text);
        if (errors.length > 0) {
          for (const e of errors) io.stderr.write(`${file}:${e.line}: ${e.message}\n`);
          code = 2;
          return;
        }
        const { run, added, existing } = await fleet.submitTasks(tasks, {
          ...connection(o, io),
          ...(o.attempts !== undefined && { attempts: o.attempts }),
          ...(o.run !== undefined && { runId: o.run }),
          ...(o.allowVolatileRedis !== undefined && { allowVolatileRedis: o.allowVolatileRedis }),
          ...(o.keepFinished !== undefined && { keepFinished: o.keepFinished }),
          ...(o.keepFor !== undefined && { keepFinishedForS: o.keepFor }),
        });
        io.stdout.write(
          `submitted ${added} task${added === 1 ? "" : "s"} as run ${run}${existing > 0 ? ` (${existing} already queued or finished, left as they are)` : ""}\n`,
        );
      },
    );

  common(
    program
      .command("worker")
      .description("take tasks from the queue and run them, each in a fresh workspace"),
  )
    .option("--concurrency <n>", "tasks at once (default 1)", positiveInteger)
    .option("--exit-when-idle", "stop once nothing is waiting or running")
    .option("--work-dir <dir>", "where workspaces are made (default: the temp directory)")
    .option(
      "--max-per-minute <n>",
      "at most this many tasks start per minute across all workers",
      positiveInteger,
    )
    .option(
      "--rate-limit-backoff <ms>",
      "how long the queue pauses after a provider's 429 (default 30000)",
      positiveInteger,
    )
    .option(
      "--lock-duration <ms>",
      "how long a silent worker keeps its task before others take it (default 30000)",
      positiveInteger,
    )
    .option("--allow-volatile-redis", "work from a Redis that does not persist or may evict keys")
    .option(
      "--allow-modes <modes>",
      "permission modes tasks may ask for, comma-separated (default: any)",
      list,
    )
    .option("--default-mode <mode>", "the mode of a task that names none (default: yolo, if allowed)")
    .option("--allow-repos <list>", "repositories tasks may name; a trailing * or / allows a prefix", list)
    .option("--allow-remotes <list>", "SSH hosts for tasks' remote tools; '' forbids them", (v: string) =>
      list(v),
    )
    .option("--allow-providers <list>", "providers tasks may name", list)
    .option("--allow-network", "let tasks turn the network on for the agent's commands")
    .option("--allow-task-setup", "let tasks bring a setup command (it runs unsandboxed, with network)")
    .option(
      "--allow-push",
      "let tasks push a branch or open a pull request (output) with this worker's git credentials and GITHUB_TOKEN",
    )
    .option(
      "--task-home <dir>",
      "seed every attempt's attractor home from this directory (settings.json, MCP, …)",
    )
    .option("--setup <command>", "run this shell command in every checkout before the agent, with network")
    .option("--require-sandbox", "refuse every task where bubblewrap cannot sandbox the agent's commands")
    .option(
      "--container-image <image>",
      "run each task's setup and the agent's commands in a container of this image (in place of bubblewrap)",
    )
    .option("--container-runtime <program>", "podman or docker (default: podman when installed, else docker)")
    .option(
      "--provider-limit <spec>",
      "PROVIDER[:requests=N,tokens=N] per minute across all workers; the agent reaches the provider through this worker, which holds its key (repeatable)",
      providerLimit,
    )
    .option("--metrics-port <port>", "serve /metrics (Prometheus) and /healthz on this port", positiveInteger)
    .option("--metrics-host <address>", "the address of the metrics server (default 127.0.0.1)")
    .action(
      async (
        o: Common & {
          concurrency?: number;
          exitWhenIdle?: boolean;
          workDir?: string;
          maxPerMinute?: number;
          rateLimitBackoff?: number;
          lockDuration?: number;
          allowVolatileRedis?: boolean;
          allowModes?: string[];
          defaultMode?: string;
          allowRepos?: string[];
          allowRemotes?: string[];
          allowProviders?: string[];
          allowNetwork?: boolean;
          allowTaskSetup?: boolean;
          allowPush?: boolean;
          taskHome?: string;
          setup?: string;
          requireSandbox?: boolean;
          containerImage?: string;
          containerRuntime?: string;
          metricsPort?: number;
          metricsHost?: string;
          providerLimit?: Record<string, { requests?: number; tokens?: number }>;
        },
      ) => {
        const stop = new AbortController();
        // The first SIGTERM/SIGINT stops taking tasks and finishes the running ones; a second one
        // exits at once, and the agents end with the worker (their parent-death signal).
        io.onStoppable?.(() => stop.abort());
        const policy = {
          ...(o.allowModes !== undefined && { modes: o.allowModes }),
          ...(o.defaultMode !== undefined && { defaultMode: o.defaultMode }),
          ...(o.allowRepos !== undefined && { repos: o.allowRepos }),
          ...(o.allowRemotes !== undefined && { remotes: o.allowRemotes }),
          ...(o.allowProviders !== undefined && { providers: o.allowProviders }),
          ...(o.allowNetwork !== undefined && { network: o.allowNetwork }),
          ...(o.allowTaskSetup !== undefined && { taskSetup: o.allowTaskSetup }),
          ...(o.allowPush !== undefined && { push: o.allowPush }),
        };
        const { probeBubblewrap, programOnPath } = await import("@attractor/agent");
        const probe = await probeBubblewrap(io.env.PATH);
        if (o.containerRuntime !== undefined && o.containerImage === undefined)
          throw new UsageError("--container-runtime needs --container-image");
        const container = o.containerImage && {
          image: o.containerImage,
          runtime:
            o.containerRuntime ?? (programOnPath("podman", io.env.PATH) !== "podman" ? "podman" : "docker"),
        };
        const environment = {
          ...(container && { container }),
          ...(o.taskHome !== undefined && { home: resolve(io.cwd, o.taskHome) }),
          ...(o.setup !== undefined && { setup: o.setup }),
          ...(o.requireSandbox !== undefined && { requireSandbox: o.requireSandbox }),
          sandbox: probe.available
            ? { available: true as const }
            : { available: false as const, reason: probe.reason },
        };
        if (!probe.available && !container)
          io.stderr.write(
            `worker: the agent's commands cannot be sandboxed here (${probe.reason}): ${o.requireSandbox ? "every task will be refused" : "tasks run them unsandboxed, with network, unless they require a sandbox"}\n`,
          );
        const entry = process.argv[1];
        if (entry === undefined) throw new UsageError("cannot tell how this command was started");
        const fleet = await full();
        const { attempts } = await fleet
          .runWorker({
            ...connection(o, io),
            ...(o.providerLimit !== undefined && { providerLimits: o.providerLimit }),
            command: [process.execPath, entry],
            signal: stop.signal,
            ...(o.concurrency !== undefined && { concurrency: o.concurrency }),
            ...(o.exitWhenIdle !== undefined && { exitWhenIdle: o.exitWhenIdle }),
            ...(o.workDir !== undefined && { workRoot: resolve(io.cwd, o.workDir) }),
            ...(o.maxPerMinute !== undefined && { maxPerMinute: o.maxPerMinute }),
            ...(o.rateLimitBackoff !== undefined && { rateLimitBackoffMs: o.rateLimitBackoff }),
            ...(o.lockDuration !== undefined && { lockDurationMs: o.lockDuration }),
            ...(o.allowVolatileRedis !== undefined && { allowVolatileRedis: o.allowVolatileRedis }),
            policy,
            environment,
            ...(o.metricsPort !== undefined && { metricsPort: o.metricsPort }),
            ...(o.metricsHost !== undefined && { metricsHost: o.metricsHost }),
            onNotice: (message) => io.stderr.write(`worker: ${message}\n`),
            onOutcome: (task, outcome) =>
              io.stderr.write(
                `${task.id}: ${outcome.status}${"error" in outcome && outcome.error ? ` (${typeof outcome.error === "string" ? outcome.error : outcome.error.message})` : ""}\n`,
              ),
          })
          .catch((error: unknown) => {
            // A limit for a provider this worker has no key for is a usage error.
            throw error instanceof fleet.ProviderLimitError ? new UsageError(error.message) : error;
          });
        io.stderr.write(`worker stopped after ${attempts} attempt${attempts === 1 ? "" : "s"}\n`);
      },
    );

  common(program.command("status").description("progress of a run: counts, rate, ETA, failures, lost tasks"))
    .option("--run <id>", "the run (default: the queue's latest)")
    .option("--watch", "redraw every second until every task has finished")
    .option("--json", "one JSON object")
    .action(async (o: Common & { run?: string; watch?: boolean; json?: boolean }) => {
      for (;;) {
        const status = await quick.fleetStatus({
          ...connection(o, io),
          ...(o.run !== undefined && { run: o.run }),
        });
        if (o.json) io.stdout.write(`${JSON.stringify(status)}\n`);
        else io.stdout.write(`${formatStatus(status)}\n`);
        // A lost task fails the run, whatever else finished; a run Redis forgot whose results
        // are all in the store has lost nothing.
        if (status.missing > 0) code = 1;
        if (!o.watch || status.pending === 0) return;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    });

  common(
    program.command("results").description("each task of a run: status, answer, patch, usage, cost, error"),
  )
    .option("--run <id>", "the run (default: the queue's latest)")
    .option(
      "--json",
      "one JSON object per task (id, run, status, attempts, result, patch, usage, cost_usd, duration_ms, error, isolation)",
    )
    .option("--out <dir>", "also write results.jsonl and patches/<id>.patch there")
    .action(async (o: Common & { run?: string; json?: boolean; out?: string }) => {
      const results = await (await full()).readResults({
        ...connection(o, io),
        ...(o.run !== undefined && { run: o.run }),
      });
      if (o.out !== undefined) {
        const dir = resolve(io.cwd, o.out);
        await mkdir(join(dir, "patches"), { recursive: true });
        await writeFile(join(dir, "results.jsonl"), results.map((r) => `${JSON.stringify(r)}\n`).join(""));
        for (const r of results)
          if (r.patch)
            await writeFile(join(dir, "patches", `${r.id.replace(/[^\w.-]/g, "_")}.patch`), r.patch);
      }
      if (o.json) for (const r of results) io.stdout.write(`${JSON.stringify(r)}\n`);
      else
        for (const r of results)
          io.stdout.write(
            `${r.id}\t${r.status}\t${r.attempts} attempt${r.attempts === 1 ? "" : "s"}\t${r.error ?? (r.result ?? "").split("\n")[0]?.slice(0, 100)}\n`,
          );
      const missing = results.filter((r) => r.status === "missing").length;
      if (missing > 0)
        io.stderr.write(
          `attractor fleet: ${missing} task${missing === 1 ? "" : "s"} of the run ${missing === 1 ? "is" : "are"} lost (Redis no longer knows ${missing === 1 ? "it" : "them"} and the result store has no result)\n`,
        );
      if (results.some((r) => r.status === "failed" || r.status === "missing" || r.status === "cancelled"))
        code = 1;
    });

  common(
    program
      .command("transcript <id>")
      .description("a finished task's transcript (JSONL) from the result store"),
  ).action(async (id: string, o: Common) => {
    const text = await quick.readTranscript(id, connection(o, io));
    if (text === undefined) throw new UsageError(`no transcript of task ${id} in the result store`);
    io.stdout.write(text);
  });

  common(
    program
      .command("cancel [ids...]")
      .description(
        "cancel tasks, a run or everything queued; running attempts are ended and their workspaces removed",
      ),
  )
    .option("--run [id]", "every task of a run (default: the queue's latest)")
    .option("--all", "every task on the queue")
    .action(async (ids: string[], o: Common & { run?: string | true; all?: boolean }) => {
      const chosen = [ids.length > 0, o.run !== undefined, o.all === true].filter(Boolean).length;
      if (chosen !== 1) throw new UsageError("cancel takes task ids, or --run [id], or --all (one of them)");
      const report = await (await full()).cancelTasks(
        ids.length > 0
          ? { kind: "tasks", ids }
          : o.all
            ? { kind: "queue" }
            : { kind: "run", ...(typeof o.run === "string" && { run: o.run }) },
        connection(o, io),
      );
      io.stdout.write(
        `cancelled ${report.removed.length} waiting, stopping ${report.stopping.length} running; ${report.finished.length} had finished${report.unknown.length > 0 ? `; unknown: ${report.unknown.join(", ")}` : ""}\n`,
      );
      if (report.unknown.length > 0) code = 1;
    });

  common(
    program
      .command("clean")
      .description(
        "remove finished runs from Redis and the result store: jobs, outcomes, patches, transcripts",
      ),
  )
    .option("--run <id>", "this run")
    .option(
      "--older-than <duration>",
      "every run submitted before this long ago (90s, 30m, 12h, 7d)",
      seconds,
    )
    .action(async (o: Common & { run?: string; olderThan?: number }) => {
      if ((o.run === undefined) === (o.olderThan === undefined))
        throw new UsageError("clean takes --run ID or --older-than DURATION (one of them)");
      const report = await (await full()).cleanFleet(
        o.run !== undefined ? { run: o.run } : { olderThanS: o.olderThan as number },
        connection(o, io),
      );
      io.stdout.write(
        `removed ${report.runs.length} run${report.runs.length === 1 ? "" : "s"} (${report.tasks} tasks)${report.unfinished.length > 0 ? `; left unfinished: ${report.unfinished.join(", ")}` : ""}\n`,
      );
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError)
      return error.code === "commander.helpDisplayed" || error.code === "commander.help" ? 0 : 2;
    if (error instanceof UsageError) {
      io.stderr.write(`attractor fleet: ${error.message}\n`);
      return 2;
    }
    if (
      error instanceof quick.VolatileRedisError ||
      error instanceof quick.UnknownRunError ||
      error instanceof quick.RedisUnreachableError ||
      error instanceof quick.RedisConnectionError
    ) {
      io.stderr.write(`attractor fleet: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  return code;
}

/** A problem with what the user asked for (exit 2). */
class UsageError extends Error {
  override readonly name = "UsageError";
}
