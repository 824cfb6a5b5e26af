import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { basename } from "node:path";
import { promisify } from "node:util";
import { alive, processStart } from "./workspace.js";

const run = promisify(execFile);

/** A container image every task runs in, through a container runtime on the worker. */
export interface ContainerSpec {
  /** The image (pulled at the worker's start when missing). */
  readonly image: string;
  /** `podman` or `docker` (or a path to one of them). */
  readonly runtime: string;
}

/** The worker cannot run the containers it was told to. */
export class ContainerUnavailableError extends Error {
  override readonly name = "ContainerUnavailableError";
}

/** Variables that describe the worker's machine, not the image: never passed into a container. */
const HOST_ONLY = new Set([
  "PATH",
  "HOME",
  "PWD",
  "OLDPWD",
  "SHLVL",
  "HOSTNAME",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "SHELL",
  "_",
]);

/** `--env NAME=VALUE` for each variable but the host's own. */
export function containerEnvArgs(env: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env))
    if (!HOST_ONLY.has(name)) out.push("--env", `${name}=${value}`);
  return out;
}

const detail = (error: unknown): string =>
  ((error as { stderr?: string }).stderr ?? "").trim().split("\n").slice(-3).join(" ") ||
  (error as Error).message;

/**
 * Checks, at the worker's start, that the runtime runs and has the image (pulling it when
 * missing); rejects with ContainerUnavailableError and the runtime's own words otherwise.
 */
export async function checkContainer(
  spec: ContainerSpec,
  env: Readonly<Record<string, string>>,
): Promise<void> {
  try {
    await run(spec.runtime, ["image", "inspect", spec.image], { env });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new ContainerUnavailableError(`the container runtime ${spec.runtime} is not installed here`);
  }
  try {
    await run(spec.runtime, ["pull", spec.image], { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    throw new ContainerUnavailableError(
      `${spec.runtime} has no image ${spec.image} and cannot pull it: ${detail(error)}`,
    );
  }
}

const PREFIX = "attractor-task-";

/** This machine's name as a container name allows it. */
const host = (): string => hostname().replace(/[^a-zA-Z0-9_.]/g, "_");

/**
 * A fresh container name for one task attempt, naming its worker (host, pid and start time) so
 * a later worker can tell the containers of a dead one — also where several workers, each in its
 * own pid namespace, share one runtime (their host names differ).
 */
export const containerName = (): string =>
  `${PREFIX}${host()}-${process.pid}-${processStart(process.pid) ?? "0"}-${randomBytes(4).toString("hex")}`;

/**
 * Removes the task containers that dead workers of this host left (killed outright, their
 * attempt's own clean-up never ran); resolves to how many.
 */
export async function removeStaleContainers(
  spec: ContainerSpec,
  env: Readonly<Record<string, string>>,
): Promise<number> {
  const { stdout } = await run(
    spec.runtime,
    ["ps", "-a", "--filter", `name=${PREFIX}`, "--format", "{{.Names}}"],
    {
      env,
    },
  ).catch(() => ({ stdout: "" }));
  let removed = 0;
  for (const name of stdout.split("\n").map((n) => n.trim())) {
    const owner = new RegExp(`^${PREFIX}(.+)-(\\d+)-(\\d+)-[0-9a-f]+$`).exec(name);
    if (!owner || owner[1] !== host()) continue;
    const pid = Number(owner[2]);
    const started = owner[3] === "0" ? undefined : owner[3];
    if (alive(pid) && (started === undefined || processStart(pid) === started)) continue;
    await removeContainer(spec, name, env);
    removed++;
  }
  return removed;
}

/**
 * The argv that runs `command` with `sh -c` in a new container of the image named `name`, the
 * checkout `dir` mounted at the same path and working directory, on the worker's network (a setup
 * step: dependencies come in here), removed when it ends.
 */
export function setupArgv(
  spec: ContainerSpec,
  name: string,
  dir: string,
  command: string,
  env: Readonly<Record<string, string>>,
): [string, ...string[]] {
  return [
    spec.runtime,
    "run",
    "--rm",
    "--name",
    name,
    "--network",
    "host",
    "-v",
    `${dir}:${dir}`,
    "-w",
    dir,
    ...containerEnvArgs(env),
    spec.image,
    "/bin/sh",
    "-c",
    command,
  ];
}

/**
 * Starts the container the agent's commands run in (through `exec`): the checkout mounted at the
 * same path, no network unless `network` (then the worker's), kept alive by `sleep` until
 * removeContainer.
 */
export async function startAgentContainer(
  spec: ContainerSpec,
  dir: string,
  network: boolean,
  env: Readonly<Record<string, string>>,
): Promise<string> {
  const name = containerName();
  try {
    await run(
      spec.runtime,
      [
        "run",
        "-d",
        "--name",
        name,
        "--network",
        network ? "host" : "none",
        "-v",
        `${dir}:${dir}`,
        "-w",
        dir,
        spec.image,
        "sleep",
        "infinity",
      ],
      { env },
    );
  } catch (error) {
    await removeContainer(spec, name, env);
    throw new ContainerUnavailableError(`cannot start a container of ${spec.image}: ${detail(error)}`);
  }
  return name;
}

/** Removes a container at once (its processes killed); one already gone is fine. */
export async function removeContainer(
  spec: ContainerSpec,
  name: string,
  env: Readonly<Record<string, string>>,
): Promise<void> {
  // Podman's rm -f waits out the stop timeout first; Docker's kills at once and has no -t.
  const now = basename(spec.runtime).startsWith("podman") ? ["-t", "0"] : [];
  await run(spec.runtime, ["rm", "-f", ...now, name], { env }).catch(() => undefined);
}
