import { spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSessionStore, REDACTED, turnsOf } from "../src/store/index.js";

let dir: string;
let home: string;
let project: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-store-"));
  home = join(dir, "home");
  project = join(dir, "project");
  await mkdir(project);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const userTurn = (content: string) => ({
  turn: { kind: "user", content, timestamp: new Date().toISOString() },
});

describe("session store", () => {
  it("appends entries with ids chained by parentId and loads them back", async () => {
    const store = createSessionStore({ home, durable: false });
    const writer = await store.create(project, { model: "m" });
    const a = await writer.append("turn", userTurn("hello"));
    const b = await writer.append("turn", {
      turn: { kind: "assistant", content: "hi", toolCalls: [], parts: [] },
    });
    await writer.close();
    const transcript = await store.load(writer.sessionId, project);
    expect(transcript.warnings).toEqual([]);
    expect(transcript.header?.projectDir).toBe(project);
    expect(transcript.entries.map((e) => e.id)).toEqual([a.id, b.id]);
    expect(b.parentId).toBe(a.id);
    expect(a.parentId).toBe(transcript.header?.id);
    expect(turnsOf<{ kind: string }>(transcript).map((t) => t.kind)).toEqual(["user", "assistant"]);
  });

  it("never writes API keys", async () => {
    const key = "sk-test-0123456789abcdefghijklmnop";
    const store = createSessionStore({ home, durable: false, secrets: ["my-private-value-123"] });
    const writer = await store.create(project);
    await writer.append("turn", userTurn(`key ${key} and my-private-value-123 here`));
    await writer.append("config", { apiKey: "anything-at-all", nested: { authorization: "Bearer zzz" } });
    await writer.close();
    const text = await readFile(writer.path, "utf8");
    expect(text).not.toContain(key);
    expect(text).not.toContain("my-private-value-123");
    expect(text).not.toContain("anything-at-all");
    expect(text).not.toContain("Bearer zzz");
    expect(text).toContain(REDACTED);
  });

  it("skips corrupt middle and truncated last lines with warnings, and appends after them cleanly", async () => {
    const store = createSessionStore({ home, durable: false });
    const writer = await store.create(project);
    await writer.append("turn", userTurn("one"));
    await appendFile(writer.path, "{not json}\n");
    await writer.append("turn", userTurn("two"));
    await writer.close();
    await appendFile(writer.path, '{"id":"x","parentId":null,"type":"tu');

    const transcript = await store.load(writer.sessionId);
    expect(turnsOf<{ content: string }>(transcript).map((t) => t.content)).toEqual(["one", "two"]);
    expect(transcript.warnings.map((w) => w.line)).toEqual([3, 5]);
    expect(transcript.warnings[1]?.message).toMatch(/last line/);

    const again = await store.openForAppend(writer.sessionId, project);
    await again.append("turn", userTurn("three"));
    await again.close();
    const reloaded = await store.load(writer.sessionId, project);
    expect(turnsOf<{ content: string }>(reloaded).map((t) => t.content)).toEqual(["one", "two", "three"]);
  });

  it("lists a project's sessions newest first with their first user message; latest is the newest", async () => {
    const store = createSessionStore({ home, durable: false });
    const first = await store.create(project);
    await first.append("turn", userTurn("first session question"));
    await first.close();
    await new Promise((r) => setTimeout(r, 20));
    const second = await store.create(project);
    await second.append("turn", userTurn("second session question"));
    await second.close();
    const other = await store.create(join(dir, "elsewhere"));
    await other.close();

    const sessions = await store.list(project);
    expect(sessions.map((s) => s.firstUserMessage)).toEqual([
      "second session question",
      "first session question",
    ]);
    expect((await store.latest(project))?.sessionId).toBe(second.sessionId);
    await expect(store.load("../../etc/passwd")).rejects.toThrow(/no stored session/);
  });

  it("loses no completed entry when the writing process is killed with SIGKILL", async () => {
    const lib = join(dir, "lib");
    await mkdir(lib);
    // The compiled store, which resolves its package imports from the repository.
    const compiled = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "store", "session-store.js");
    await writeFile(join(lib, "package.json"), '{"type":"module"}');
    const script = join(lib, "writer.js");
    await writeFile(
      script,
      `import { createSessionStore } from ${JSON.stringify(pathToFileURL(compiled).href)};
const store = createSessionStore({ home: process.argv[2] });
const w = await store.create(process.argv[3]);
process.stdout.write("session " + w.sessionId + "\\n");
for (let i = 0; ; i++) {
  await w.append("turn", { turn: { kind: "user", content: "entry " + i + " " + "x".repeat(i % 5000) } });
  process.stdout.write("done " + i + "\\n");
}
`,
    );
    const child = spawn(process.execPath, [script, home, project], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    let sessionId = "";
    let lastDone = -1;
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const lines = output.split("\n");
        output = lines.pop() ?? "";
        for (const line of lines) {
          if (line.startsWith("session ")) sessionId = line.slice(8);
          else if (line.startsWith("done ")) lastDone = Number(line.slice(5));
        }
        if (lastDone >= 200 && child.exitCode === null && !child.killed) {
          child.kill("SIGKILL");
        }
      });
      child.on("exit", () => resolve());
    });
    expect(lastDone).toBeGreaterThanOrEqual(200);
    const store = createSessionStore({ home });
    const transcript = await store.load(sessionId, project);
    const contents = turnsOf<{ content: string }>(transcript).map((t) =>
      t.content.split(" ").slice(0, 2).join(" "),
    );
    // Every entry the child saw completed is there, in order; at most a torn last line is skipped.
    expect(contents.length).toBeGreaterThanOrEqual(lastDone + 1);
    expect(contents).toEqual(contents.map((_, i) => `entry ${i}`));
    expect(transcript.warnings.length).toBeLessThanOrEqual(1);
  });

  it("keeps an entry whose append returned when the process kills itself before any sync to the disk", async () => {
    const lib = join(dir, "lib");
    await mkdir(lib);
    const compiled = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "store", "session-store.js");
    await writeFile(join(lib, "package.json"), '{"type":"module"}');
    const script = join(lib, "writer.js");
    // The kill comes in the same tick as the append, before the background fdatasync can run.
    await writeFile(
      script,
      `import { createSessionStore } from ${JSON.stringify(pathToFileURL(compiled).href)};
const store = createSessionStore({ home: process.argv[2] });
const w = await store.create(process.argv[3]);
process.stdout.write(w.sessionId);
w.append("turn", { turn: { kind: "user", content: "written then killed" } });
process.kill(process.pid, "SIGKILL");
`,
    );
    const child = spawn(process.execPath, [script, home, project], { stdio: ["ignore", "pipe", "inherit"] });
    let sessionId = "";
    child.stdout.on("data", (chunk: Buffer) => {
      sessionId += chunk.toString();
    });
    const signal = await new Promise((resolve) => child.on("exit", (_code, s) => resolve(s)));
    expect(signal).toBe("SIGKILL");
    const transcript = await createSessionStore({ home }).load(sessionId, project);
    expect(turnsOf<{ content: string }>(transcript).map((t) => t.content)).toEqual(["written then killed"]);
    expect(transcript.warnings).toEqual([]);
  });

  it("sync() and close() leave every entry readable; appends after close are refused", async () => {
    const store = createSessionStore({ home });
    const w = await store.create(project);
    for (let i = 0; i < 5; i++) await w.append("turn", userTurn(`m${i}`));
    await w.sync();
    await w.append("turn", userTurn("m5"));
    await w.close();
    await expect(w.append("turn", userTurn("late"))).rejects.toThrow(/closed/);
    const transcript = await store.load(w.sessionId, project);
    expect(turnsOf<{ content: string }>(transcript).map((t) => t.content)).toEqual([
      "m0",
      "m1",
      "m2",
      "m3",
      "m4",
      "m5",
    ]);
  });
});
