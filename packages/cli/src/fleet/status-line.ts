import type { FleetStatus } from "@attractor/fleet";

const BAR = 30;

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0
    ? `${h}h${String(m).padStart(2, "0")}m`
    : m > 0
      ? `${m}m${String(s).padStart(2, "0")}s`
      : `${s}s`;
}

/** A progress bar and the counts, rate, ETA, failures and lost tasks of a run, as `fleet status` prints them. */
export function formatStatus(status: FleetStatus): string {
  if (status.run === null) return "no run in this queue (nothing submitted, or cleaned)";
  const done = status.completed + status.failed + status.cancelled;
  const filled = status.total === 0 ? 0 : Math.round((done / status.total) * BAR);
  const bar = `[${"#".repeat(filled)}${".".repeat(BAR - filled)}]`;
  const eta =
    status.etaSeconds === null
      ? "ETA unknown"
      : status.etaSeconds === 0
        ? "finished"
        : `ETA ${duration(status.etaSeconds)}`;
  const lines = [
    `run ${status.run}: ${bar} ${done}/${status.total} finished: ${status.completed} completed, ${status.failed} failed${status.cancelled > 0 ? `, ${status.cancelled} cancelled` : ""}; ${status.pending} queued${status.missing > 0 ? `; ${status.missing} LOST` : ""} · ${status.perMinute}/min · ${eta}`,
    `  queue: ${status.active} running, ${status.waiting + status.delayed} waiting`,
  ];
  if (!status.runInRedis)
    lines.push("  Redis has no record of this run (it lost its data): only the result store knows it");
  if (status.missing > 0)
    lines.push(
      `  lost ${status.missing} task${status.missing === 1 ? "" : "s"} (neither Redis nor the result store knows ${status.missing === 1 ? "it" : "them"}): ${status.missingIds.slice(0, 10).join(", ")}${status.missing > 10 ? ", …" : ""}`,
    );
  for (const f of status.failures.slice(0, 10)) lines.push(`  failed ${f.id}: ${f.error}`);
  if (status.failed > 10) lines.push(`  … and ${status.failed - 10} more failures`);
  return lines.join("\n");
}
