/** One task of a fleet: a repository, a prompt, and how to run the agent on it. */
export interface FleetTask {
  /** Unique in the queue: submitting the same id again does nothing. */
  readonly id: string;
  /** A git repository: a path on the worker's machine or a URL it can clone. */
  readonly repo: string;
  /** Branch, tag or commit to check out; the repository's default branch when absent. */
  readonly ref?: string;
  readonly prompt: string;
  readonly provider?: string;
  readonly model?: string;
  /** Permission mode (any name `attractor --permission-mode` takes); yolo when absent. */
  readonly mode?: string;
  readonly max_turns?: number;
  /** Wall-clock limit of one attempt, in seconds (default 1800). */
  readonly timeout_s?: number;
  /** Run the tools on this SSH host instead of the worker (`[user@]host:/path`). */
  readonly remote?: string;
  /** A shell command run in the checkout before the agent, with network (e.g. `npm ci`); the worker must allow it. */
  readonly setup?: string;
  /** Network for the agent's sandboxed commands (off by default); the worker must allow it. */
  readonly network?: boolean;
  /** Taken before tasks of a larger number (1 is the most urgent; 100 when absent). */
  readonly priority?: number;
  /** The isolation the task needs: `sandbox` refuses to run it where bubblewrap cannot sandbox the agent's commands. */
  readonly isolation?: "sandbox";
  /** After a successful attempt, push the changes as a branch, or a branch and a pull request; the worker must allow it. */
  readonly output?: "branch" | "pull-request";
}

/** A line of a task file that is not a valid task. */
export interface TaskLineError {
  readonly line: number;
  readonly message: string;
}

const STRING_FIELDS = [
  "id",
  "repo",
  "ref",
  "prompt",
  "provider",
  "model",
  "mode",
  "remote",
  "setup",
] as const;
const NUMBER_FIELDS = ["max_turns", "timeout_s", "priority"] as const;
const KNOWN = new Set<string>([...STRING_FIELDS, ...NUMBER_FIELDS, "network", "isolation", "output"]);

/** Why a parsed value is not a task, or undefined when it is one. */
function problemOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const task = value as Record<string, unknown>;
  for (const key of Object.keys(task)) if (!KNOWN.has(key)) return `unknown field "${key}"`;
  for (const key of ["id", "repo", "prompt"])
    if (typeof task[key] !== "string" || (task[key] as string).trim() === "")
      return `"${key}" is required (a non-empty string)`;
  for (const key of STRING_FIELDS)
    if (task[key] !== undefined && typeof task[key] !== "string") return `"${key}" must be a string`;
  for (const key of NUMBER_FIELDS) {
    const v = task[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 1))
      return `"${key}" must be a whole number of at least 1`;
  }
  if (task.network !== undefined && typeof task.network !== "boolean")
    return '"network" must be true or false (an allow-list of hosts cannot be enforced by the sandbox)';
  if (task.isolation !== undefined && task.isolation !== "sandbox") return '"isolation" must be "sandbox"';
  if (task.output !== undefined && task.output !== "branch" && task.output !== "pull-request")
    return '"output" must be "branch" or "pull-request"';
  // Keys and base URLs come from the worker's environment, never from the queue.
  if (/^[\w-]+:\/\//.test(String(task.provider ?? ""))) return '"provider" is a provider name, not a URL';
  return undefined;
}

/**
 * Parses a JSONL task file: one task per line, blank lines and `#` comments skipped. Every bad
 * line is reported with its number; duplicate ids are errors too.
 */
export function parseTasks(text: string): { tasks: FleetTask[]; errors: TaskLineError[] } {
  const tasks: FleetTask[] = [];
  const errors: TaskLineError[] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      errors.push({ line, message: `not JSON: ${(error as Error).message}` });
      return;
    }
    const problem = problemOf(value);
    if (problem !== undefined) {
      errors.push({ line, message: problem });
      return;
    }
    const task = value as FleetTask;
    if (seen.has(task.id)) {
      errors.push({ line, message: `duplicate id "${task.id}"` });
      return;
    }
    seen.add(task.id);
    tasks.push(task);
  });
  return { tasks, errors };
}

/** A task as it sits on the queue: with the run that submitted it. */
export type QueuedTask = FleetTask & { readonly run: string };
