// A real OpenSSH server on 127.0.0.1 for the tests: throwaway host and user keys, an authorized
// key, its own config in a temp dir. Started once per test file.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

const SSHD = "/usr/sbin/sshd";

/** Why sshd cannot run here, or undefined when it can. */
export function sshdUnavailable(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} is missing (Debian package openssh-server)`;
  if (process.getuid?.() !== 0) return "sshd needs root to start for the tests";
  return undefined;
}

export interface TestSshd {
  readonly port: number;
  readonly username: string;
  readonly privateKeyPath: string;
  readonly knownHostsPath: string;
  /** A known_hosts file naming the server with another key. */
  readonly wrongKnownHostsPath: string;
  readonly dir: string;
  /** The listening sshd process. */
  readonly pid: number | undefined;
  /** Kills the per-connection sshd processes (the listener stays): every connection drops. */
  dropConnections(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function waitForPort(port: number, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen on ${port}`);
}

/**
 * Starts sshd with fresh keys; `sftp` "internal" (default), "external" (a separate sftp-server
 * process per session) or "none" (no SFTP subsystem).
 */
export async function startSshd(
  options: { readonly sftp?: "internal" | "external" | "none" } = {},
): Promise<TestSshd> {
  const dir = await mkdtemp(join(tmpdir(), "attractor-sshd-"));
  const keygen = (file: string) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", file]);
  keygen(join(dir, "host_key"));
  keygen(join(dir, "other_host_key"));
  keygen(join(dir, "user_key"));
  await writeFile(join(dir, "authorized_keys"), await readFile(join(dir, "user_key.pub")));
  await mkdir("/run/sshd", { recursive: true });
  const port = await freePort();
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${join(dir, "host_key")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "PermitRootLogin prohibit-password",
    "UsePAM no",
    "StrictModes no",
    `PidFile ${join(dir, "sshd.pid")}`,
    ...(options.sftp === "none"
      ? []
      : [`Subsystem sftp ${options.sftp === "external" ? "/usr/lib/openssh/sftp-server" : "internal-sftp"}`]),
    "LogLevel ERROR",
  ].join("\n");
  await writeFile(join(dir, "sshd_config"), `${config}\n`);
  const child: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (d) => {
    log += String(d);
  });
  try {
    await waitForPort(port);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}: ${log}`);
  }
  const hostPub = (await readFile(join(dir, "host_key.pub"), "utf8")).split(" ").slice(0, 2).join(" ");
  const otherPub = (await readFile(join(dir, "other_host_key.pub"), "utf8")).split(" ").slice(0, 2).join(" ");
  await writeFile(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostPub}\n`);
  await writeFile(join(dir, "wrong_known_hosts"), `[127.0.0.1]:${port} ${otherPub}\n`);
  const dropConnections = () => {
    if (child.pid === undefined) return;
    try {
      execFileSync("pkill", ["-KILL", "-P", String(child.pid)]);
    } catch {
      // No connection open.
    }
  };
  return {
    port,
    username: userInfo().username,
    privateKeyPath: join(dir, "user_key"),
    knownHostsPath: join(dir, "known_hosts"),
    wrongKnownHostsPath: join(dir, "wrong_known_hosts"),
    dir,
    pid: child.pid,
    dropConnections,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 50));
      dropConnections();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
