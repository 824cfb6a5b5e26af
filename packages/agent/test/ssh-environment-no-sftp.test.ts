// SshExecutionEnvironment against a real OpenSSH server on 127.0.0.1 that has no SFTP subsystem:
// files go over exec (stat, find, base64, mkdir -p, mv) and every method still gives what the
// local environment gives for the same files.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExecutionEnvironment,
  FileNotFoundError,
  IsADirectoryError,
  LocalExecutionEnvironment,
  NotADirectoryError,
  SshExecutionEnvironment,
} from "../src/index.js";
import { sshdUnavailable, startSshd, type TestSshd } from "../src/testing/index.js";

const skip = sshdUnavailable();
if (skip) console.warn(`skipping the SSH environment tests without SFTP: ${skip}`);

let sshd: TestSshd;
let root: string;
let remoteDir: string;
let localDir: string;
let remote: SshExecutionEnvironment;
let local: LocalExecutionEnvironment;

async function project(dir: string): Promise<void> {
  await mkdir(join(dir, "src", "deep"), { recursive: true });
  await mkdir(join(dir, "build"), { recursive: true });
  await writeFile(join(dir, ".gitignore"), "build/\n");
  await writeFile(join(dir, "src", "a.ts"), "export const a = 1;\n// TODO: a\n");
  await writeFile(join(dir, "src", "deep", "b c.ts"), "// todo b\n");
  await writeFile(join(dir, "build", "out.ts"), "// TODO ignored\n");
  await writeFile(join(dir, "big.txt"), Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).join("\n"));
  await writeFile(join(dir, "bin.dat"), Buffer.from([1, 2, 0, 3, 255]));
  await symlink("src/a.ts", join(dir, "link.ts"));
}

beforeAll(async () => {
  if (skip) return;
  sshd = await startSshd({ sftp: "none" });
  root = await mkdtemp(join(tmpdir(), "attractor-ssh-nosftp-"));
  remoteDir = join(root, "remote");
  localDir = join(root, "local");
  await project(remoteDir);
  await project(localDir);
  remote = new SshExecutionEnvironment({
    host: "127.0.0.1",
    port: sshd.port,
    username: sshd.username,
    privateKeyPath: sshd.privateKeyPath,
    knownHostsPath: sshd.knownHostsPath,
    workingDirectory: remoteDir,
    grepEngine: "javascript",
  });
  await remote.initialize();
  local = new LocalExecutionEnvironment({ workingDirectory: localDir });
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await remote?.cleanup();
  await sshd?.stop();
  await rm(root, { recursive: true, force: true });
});

const same = (value: unknown, dir: string) => JSON.parse(JSON.stringify(value).split(dir).join("<root>"));
const both = async <T>(run: (env: ExecutionEnvironment) => Promise<T>) => {
  const [r, l] = await Promise.all([run(remote), run(local)]);
  expect(same(r, remoteDir)).toEqual(same(l, localDir));
  return r;
};

describe.skipIf(skip)("a host without an SFTP subsystem", () => {
  it("really refuses SFTP", async () => {
    const { Client } = createRequire(import.meta.url)("ssh2") as typeof import("ssh2");
    const client = new Client();
    await new Promise<void>((resolve, reject) =>
      client
        .on("ready", () => resolve())
        .on("error", reject)
        .connect({
          host: "127.0.0.1",
          port: sshd.port,
          username: sshd.username,
          privateKey: readFileSync(sshd.privateKeyPath),
        }),
    );
    const refused = await new Promise<boolean>((resolve) => client.sftp((err) => resolve(err !== undefined)));
    client.end();
    expect(refused).toBe(true);
  });

  it("reads whole files, windows of lines, bytes, through symlinks; errors as locally", async () => {
    expect(await both((e) => e.readFile("src/a.ts"))).toContain("TODO: a");
    expect(await both((e) => e.readFile("big.txt", { offset: 4000, limit: 3 }))).toBe(
      "row 4000\nrow 4001\nrow 4002",
    );
    expect([...(await both((e) => e.readFileBytes("bin.dat")))]).toEqual([1, 2, 0, 3, 255]);
    expect([...(await both((e) => e.readFileBytes("bin.dat", { maxBytes: 3 })))]).toEqual([1, 2, 0]);
    expect(await both((e) => e.readFile("link.ts"))).toContain("export const a");
    await expect(remote.readFile("nope.txt")).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(remote.readFile("src")).rejects.toBeInstanceOf(IsADirectoryError);
    expect(await remote.stat("nope")).toBeUndefined();
  });

  it("keeps trailing newlines, odd names and non-ASCII text; a FIFO is refused without holding up the host", async () => {
    const odd = "odd\nname é.txt";
    for (const dir of [remoteDir, localDir]) await writeFile(join(dir, odd), "é\n\n\n");
    try {
      expect(await both((e) => e.readFile(odd))).toBe("é\n\n\n");
      expect((await both((e) => e.listDirectory(".", 1))).map((d) => d.name)).toContain(odd);
      execFileSync("mkfifo", [join(remoteDir, "pipe")]);
      const started = Date.now();
      await expect(remote.readFile("pipe")).rejects.toThrow(/not a regular file/);
      // The helper serves the next operation and command at once.
      expect(await remote.readFile(odd)).toBe("é\n\n\n");
      expect((await remote.execCommand("echo still here")).stdout).toBe("still here\n");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const dir of [remoteDir, localDir]) await rm(join(dir, odd), { force: true });
      await rm(join(remoteDir, "pipe"), { force: true });
    }
  });

  it("stats, lists (names with spaces, .gitignore honoured), greps and globs as locally", async () => {
    for (const path of ["src", "src/a.ts", "link.ts", "bin.dat"])
      await both(async (e) => {
        const s = await e.stat(path);
        return s && { ...s, mtimeMs: Math.floor(s.mtimeMs / 1000) };
      });
    const listing = await both((e) => e.listDirectory(".", 3));
    expect(listing.map((d) => d.path)).toContain("src/deep/b c.ts");
    // The engines differ (rg locally, JavaScript over exec); what they find must not.
    const found = (e: ExecutionEnvironment, ...args: Parameters<ExecutionEnvironment["grep"]>) =>
      e.grep(...args).then(({ engine: _, ...rest }) => rest);
    expect((await both((e) => found(e, "todo", ".", { caseInsensitive: true, contextLines: 1 }))).total).toBe(
      2,
    );
    await both((e) => found(e, "TODO", ".", { outputMode: "files_with_matches" }));
    expect(new Set((await remote.glob("**/*.ts")).paths)).toEqual(
      new Set((await local.glob("**/*.ts")).paths),
    );
  });

  it("writes atomically (large files too) through new directories and symlinks, keeping the mode; deletes", async () => {
    await writeFile(join(remoteDir, "run.sh"), "#!/bin/sh\necho old\n", { mode: 0o755 });
    await remote.writeFile("run.sh", "#!/bin/sh\necho new\n");
    expect(await readFile(join(remoteDir, "run.sh"), "utf8")).toBe("#!/bin/sh\necho new\n");
    expect((await stat(join(remoteDir, "run.sh"))).mode & 0o777).toBe(0o755);
    // Several write chunks, every byte value.
    const big = Buffer.alloc(300_000, 0).map((_, i) => (i * 7) % 256);
    await remote.writeFile("made/by/ssh.bin", big);
    expect(Buffer.compare(await readFile(join(remoteDir, "made", "by", "ssh.bin")), big)).toBe(0);
    await remote.writeFile("empty.txt", "");
    expect(await readFile(join(remoteDir, "empty.txt"), "utf8")).toBe("");
    await remote.writeFile("link.ts", "export const a = 3;\n");
    expect(await readFile(join(remoteDir, "src", "a.ts"), "utf8")).toBe("export const a = 3;\n");
    await expect(remote.writeFile("src", "x")).rejects.toBeInstanceOf(IsADirectoryError);
    await expect(remote.writeFile("big.txt/inner", "x")).rejects.toBeInstanceOf(NotADirectoryError);
    await remote.deleteFile("made/by/ssh.bin");
    expect(await remote.fileExists("made/by/ssh.bin")).toBe(false);
    // No temp file left beside the targets.
    const leftovers = (await remote.listDirectory(".", 3)).filter((d) => d.name.includes(".tmp"));
    expect(leftovers).toEqual([]);
    await writeFile(join(remoteDir, "src", "a.ts"), "export const a = 1;\n// TODO: a\n");
  });

  it("runs commands as with SFTP (output collected through the helper)", async () => {
    const r = await remote.execCommand("echo out; echo err >&2; printf '\\001\\n'; exit 3");
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe("out\n\u0001\n");
    expect(r.stderr).toBe("err\n");
    // Many at once, of every size: each gets its own output, none mixed into another's.
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        remote.execCommand(
          `head -c ${i * 5000} /dev/zero | tr '\\0' ${String.fromCharCode(97 + i)}; echo e${i} >&2`,
        ),
      ),
    );
    results.forEach((res, i) => {
      expect(res.stdout).toBe(String.fromCharCode(97 + i).repeat(i * 5000));
      expect(res.stderr).toBe(`e${i}\n`);
    });
  });

  it("streams (through the helper) a command's output while it runs, each stream whole and in order", async () => {
    const chunks: { text: string; stream: string; at: number }[] = [];
    // "é" is split across the pause: its two bytes arrive in different chunks.
    const pending = remote.execCommand(
      "printf 'first\\n'; echo warn >&2; printf '\\303'; sleep 1; printf '\\251 second\\n'",
      { onOutput: (text, stream) => chunks.push({ text, stream, at: Date.now() }) },
    );
    const r = await pending;
    const ended = Date.now();
    expect(r.stdout).toBe("first\n\u00e9 second\n");
    expect(r.stderr).toBe("warn\n");
    const joined = (stream: string) =>
      chunks
        .filter((c) => c.stream === stream)
        .map((c) => c.text)
        .join("");
    expect(joined("stdout")).toBe(r.stdout);
    expect(joined("stderr")).toBe(r.stderr);
    // What was written before the one-second pause was heard well before the command ended.
    expect(ended - (chunks.find((c) => c.text.startsWith("first"))?.at ?? ended)).toBeGreaterThan(500);
    expect(ended - (chunks.find((c) => c.stream === "stderr")?.at ?? ended)).toBeGreaterThan(500);
  });

  it("streams many commands at once, none's output mixed into another's", async () => {
    const heard = Array.from({ length: 8 }, () => "");
    const results = await Promise.all(
      heard.map((_, i) =>
        remote.execCommand(
          `head -c ${i * 20000} /dev/zero | tr '\\0' ${String.fromCharCode(97 + i)}; sleep 0.3; echo done${i}`,
          {
            onOutput: (text, stream) => {
              if (stream === "stdout") heard[i] += text;
            },
          },
        ),
      ),
    );
    results.forEach((res, i) => {
      expect(res.stdout).toBe(`${String.fromCharCode(97 + i).repeat(i * 20000)}done${i}\n`);
      expect(heard[i]).toBe(res.stdout);
    });
  });
});
