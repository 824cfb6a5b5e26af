import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where a session's tools run: a host as `ssh` would reach it, and a directory there. */
export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** Absolute, or `~`/`~/…` (the remote home, resolved when the environment initializes). */
  readonly workingDirectory: string;
  /** The first IdentityFile of the config, when one is given. */
  readonly privateKeyPath?: string;
  readonly knownHostsPath: string;
}

/** A `--remote` value that cannot be understood. */
export class SshTargetError extends Error {
  override readonly name = "SshTargetError";
  constructor(
    readonly spec: string,
    problem: string,
  ) {
    super(`cannot use the remote ${JSON.stringify(spec)}: ${problem}`);
  }
}

const expandHome = (path: string, home: string) =>
  path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;

/**
 * Resolves `[user@]host[:path]` as OpenSSH would: `host` may be an alias of the ssh config file,
 * whose HostName, Port, User, IdentityFile and UserKnownHostsFile are honoured (an explicit
 * `user@` wins). The path defaults to the remote home; the user to the local user name.
 */
export async function resolveSshTarget(
  spec: string,
  options: {
    readonly home?: string;
    /** ~/.ssh/config by default. */
    readonly configPath?: string;
    readonly localUser?: string;
  } = {},
): Promise<SshTarget> {
  const home = options.home ?? homedir();
  const m = /^(?:([^@/:\s]+)@)?(\[[^\]]+\]|[^:/\s]+)(?::(.*))?$/.exec(spec.trim());
  if (!m) throw new SshTargetError(spec, "expected [user@]host:/path");
  const [, user, rawHost, rawPath] = m as unknown as [string, string | undefined, string, string | undefined];
  const alias = rawHost.replace(/^\[|\]$/g, "");
  const path = rawPath === undefined || rawPath === "" ? "~" : rawPath;
  if (!path.startsWith("/") && path !== "~" && !path.startsWith("~/"))
    throw new SshTargetError(spec, "the path must be absolute or start with ~/");

  const configPath = options.configPath ?? join(home, ".ssh", "config");
  const text = await readFile(configPath, "utf8").catch(() => "");
  let computed: Record<string, string | string[]> = {};
  if (text !== "") {
    const { default: SSHConfig } = await import("ssh-config");
    computed = SSHConfig.parse(text).compute(alias);
  }
  const first = (key: string): string | undefined => {
    const value = computed[key];
    return Array.isArray(value) ? value[0] : value;
  };
  const port = Number(first("Port") ?? 22);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new SshTargetError(spec, `bad Port ${first("Port")}`);
  const identity = first("IdentityFile");
  const knownHosts = first("UserKnownHostsFile")?.split(/\s+/)[0];
  return {
    host: first("HostName") ?? alias,
    port,
    username: user ?? first("User") ?? options.localUser ?? process.env.USER ?? "root",
    workingDirectory: path,
    ...(identity !== undefined && { privateKeyPath: expandHome(identity, home) }),
    knownHostsPath: expandHome(knownHosts ?? "~/.ssh/known_hosts", home),
  };
}
