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

/** A progress bar and the counts, rate, ETA and failures of a fleet, as `fleet status` prints them. */
export function formatStatus(status: FleetStatus): string {
  const done = status.completed + status.failed;
  const filled = status.total === 0 ? 0 : Math.round((done / status.total) * BAR);
  const bar = `[${"#".repeat(filled)}${".".repeat(BAR - filled)}]`;
  const eta =
    status.etaSeconds === null
      ? "ETA unknown"
      : status.etaSeconds === 0
        ? "finished"
        : `ETA ${duration(status.etaSeconds)}`;
  const lines = [
    `${bar} ${done}/${status.total} finished: ${status.completed} completed, ${status.failed} failed; ${status.active} running, ${status.waiting + status.delayed} waiting · ${status.perMinute}/min · ${eta}`,
  ];
  for (const f of status.failures.slice(0, 10)) lines.push(`  failed ${f.id}: ${f.error}`);
  if (status.failures.length > 10) lines.push(`  … and ${status.failures.length - 10} more failures`);
  return lines.join("\n");
}
