/** The facts the `<environment>` block reports. */
export interface EnvironmentInfo {
  readonly workingDirectory: string;
  readonly isGitRepository: boolean;
  readonly gitBranch?: string;
  readonly platform: string;
  readonly osVersion: string;
  /** YYYY-MM-DD. */
  readonly date: string;
  readonly model: string;
  readonly knowledgeCutoff?: string;
}

/** Today's date as YYYY-MM-DD in local time. */
export function localDate(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The spec's `<environment>` block. */
export function formatEnvironmentBlock(info: EnvironmentInfo): string {
  const lines = [
    "<environment>",
    `Working directory: ${info.workingDirectory}`,
    `Is git repository: ${info.isGitRepository}`,
  ];
  if (info.isGitRepository) lines.push(`Git branch: ${info.gitBranch ?? "(detached)"}`);
  lines.push(
    `Platform: ${info.platform}`,
    `OS version: ${info.osVersion}`,
    `Today's date: ${info.date}`,
    `Model: ${info.model}`,
  );
  if (info.knowledgeCutoff) lines.push(`Knowledge cutoff: ${info.knowledgeCutoff}`);
  lines.push("</environment>");
  return lines.join("\n");
}
