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
  readonly queue?: string;
}

const common = (command: Command) =>
  command
    .option("--redis <url>", "the Redis server (default: $REDIS_URL, else redis://127.0.0.1:6379)")
    .option("--queue <name>", "the queue (default: attractor)");

const connection = (o: Common, io: CliIo) => ({
  ...(o.redis !== undefined
    ? { redis: o.redis }
    : io.env.REDIS_URL !== undefined
      ? { redis: io.env.REDIS_URL }
      : {}),
  ...(o.queue !== undefined && { queue: o.queue }),
});

/**
 * `attractor fleet submit|worker|status|results`: many headless tasks on a BullMQ queue in Redis.
 * Resolves to the exit code: 0 done, 1 failures (results with a failed task, a worker error),
 * 2 bad usage or a bad task file.
 */
export async function runFleetCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  const fleet = await import("@attractor/fleet");
  const program = new Command("attractor fleet")
    .description("Run many headless tasks across machines on a BullMQ queue in Redis.")
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) })
    .showHelpAfterError("(run attractor fleet --help for usage)");

  common(program.command("submit <file>").description("put the tasks of a JSONL file on the queue"))
    .option("--attempts <n>", "attempts per task before it fails (default 3)", positiveInteger)
    .action(async (file: string, o: Common & { attempts?: number }) => {
      const text = await readFile(resolve(io.cwd, file), "utf8").catch((error: Error) => {
        throw new UsageError(`cannot read ${file}: ${error.message}`);
      });
      const { tasks, errors } = fleet.parseTasks(text);
      if (errors.length > 0) {
        for (const e of errors) io.stderr.write(`${file}:${e.line}: ${e.message}\n`);
        code = 2;
        return;
      }
      const { added, existing } = await fleet.submitTasks(tasks, {
        ...connection(o, io),
        ...(o.attempts !== undefined && { attempts: o.attempts }),
      });
      io.stdout.write(
        `submitted ${added} task${added === 1 ? "" : "s"}${existing > 0 ? ` (${existing} already queued, left as they are)` : ""}\n`,
      );
    });

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
    .action(
      async (
        o: Common & {
          concurrency?: number;
          exitWhenIdle?: boolean;
          workDir?: string;
          maxPerMinute?: number;
          rateLimitBackoff?: number;
          lockDuration?: number;
        },
      ) => {
        const stop = new AbortController();
        // The first SIGTERM/SIGINT stops taking tasks and finishes the running ones; a second one exits at once.
        io.onStoppable?.(() => stop.abort());
        const entry = process.argv[1];
        if (entry === undefined) throw new UsageError("cannot tell how this command was started");
        const { attempts } = await fleet.runWorker({
          ...connection(o, io),
          command: [process.execPath, entry],
          env: io.env,
          signal: stop.signal,
          ...(o.concurrency !== undefined && { concurrency: o.concurrency }),
          ...(o.exitWhenIdle !== undefined && { exitWhenIdle: o.exitWhenIdle }),
          ...(o.workDir !== undefined && { workRoot: resolve(io.cwd, o.workDir) }),
          ...(o.maxPerMinute !== undefined && { maxPerMinute: o.maxPerMinute }),
          ...(o.rateLimitBackoff !== undefined && { rateLimitBackoffMs: o.rateLimitBackoff }),
          ...(o.lockDuration !== undefined && { lockDurationMs: o.lockDuration }),
          onOutcome: (task, outcome) =>
            io.stderr.write(
              `${task.id}: ${outcome.status}${"error" in outcome && outcome.error ? ` (${typeof outcome.error === "string" ? outcome.error : outcome.error.message})` : ""}\n`,
            ),
        });
        io.stderr.write(`worker stopped after ${attempts} attempt${attempts === 1 ? "" : "s"}\n`);
      },
    );

  common(program.command("status").description("progress of the queue: counts, rate, ETA, failures"))
    .option("--watch", "redraw every second until every task has finished")
    .option("--json", "one JSON object")
    .action(async (o: Common & { watch?: boolean; json?: boolean }) => {
      for (;;) {
        const status = await fleet.fleetStatus(connection(o, io));
        if (o.json) io.stdout.write(`${JSON.stringify(status)}\n`);
        else io.stdout.write(`${formatStatus(status)}\n`);
        if (!o.watch || status.active + status.waiting + status.delayed === 0) return;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    });

  common(
    program.command("results").description("each task's result: status, answer, patch, usage, cost, error"),
  )
    .option(
      "--json",
      "one JSON object per task (id, status, attempts, result, patch, usage, cost_usd, duration_ms, error)",
    )
    .option("--out <dir>", "also write results.jsonl and patches/<id>.patch there")
    .action(async (o: Common & { json?: boolean; out?: string }) => {
      const results = await fleet.readResults(connection(o, io));
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
      if (results.some((r) => r.status === "failed")) code = 1;
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
    throw error;
  }
  return code;
}

/** A problem with what the user asked for (exit 2). */
class UsageError extends Error {
  override readonly name = "UsageError";
}
