// SshExecutionEnvironment against a real OpenSSH server on 127.0.0.1 whose SFTP subsystem is a
// separate sftp-server process: when that process dies the connection stays, and the next file
// operation opens a new SFTP session on it.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshExecutionEnvironment } from "../src/index.js";
import { sshdUnavailable, startSshd, type TestSshd } from "../src/testing/index.js";

const skip = sshdUnavailable();
if (skip) console.warn(`skipping the SFTP restart test: ${skip}`);

let sshd: TestSshd;
let root: string;
let remote: SshExecutionEnvironment;

beforeAll(async () => {
  if (skip) return;
  sshd = await startSshd({ sftp: "external" });
  root = await mkdtemp(join(tmpdir(), "attractor-ssh-sftp-restart-"));
  await writeFile(join(root, "a.txt"), "first\n");
  remote = new SshExecutionEnvironment({
    host: "127.0.0.1",
    port: sshd.port,
    username: sshd.username,
    privateKeyPath: sshd.privateKeyPath,
    knownHostsPath: sshd.knownHostsPath,
    workingDirectory: root,
  });
  await remote.initialize();
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await remote?.cleanup();
  await sshd?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The sftp-server processes under this test's sshd. */
function sftpServers(): number[] {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      name.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p))
      if (p === sshd.pid) return true;
    return false;
  };
  return [...name].filter(([pid, n]) => n === "sftp-server" && under(pid)).map(([pid]) => pid);
}

describe.skipIf(skip)("an SFTP session that ends while the connection stays", () => {
  it("is opened again by the next file operation; commands never noticed", async () => {
    expect(await remote.readFile("a.txt")).toBe("first\n");
    const servers = sftpServers();
    expect(servers.length).toBe(1);
    for (const pid of servers) process.kill(pid, "SIGKILL");
    for (let i = 0; i < 100 && sftpServers().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    // The channel's close reaches the client asynchronously; give it a moment.
    await new Promise((r) => setTimeout(r, 200));
    expect((await remote.execCommand("echo still here")).stdout).toBe("still here\n");
    await remote.writeFile("a.txt", "second\n");
    expect(await remote.readFile("a.txt")).toBe("second\n");
    const after = sftpServers();
    expect(after.length).toBe(1);
    expect(after[0]).not.toBe(servers[0]);
  });
});
