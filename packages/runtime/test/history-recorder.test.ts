import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Turn } from "@attractor/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHistoryRecorder, planRewindTargets, readStoredSession } from "../src/runtime/index.js";
import { createSessionStore, type SessionStore } from "../src/store/index.js";

let root: string;
let store: SessionStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "attractor-recorder-"));
  store = createSessionStore({ home: root, durable: false });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const ts = new Date().toISOString();
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const user = (content: string): Turn => ({ kind: "user", content, timestamp: ts });
const answer = (content: string): Turn => ({
  kind: "assistant",
  content,
  toolCalls: [],
  parts: [],
  usage,
  timestamp: ts,
});

describe("history recorder and stored sessions", () => {
  it("a rewritten branch names the entries it replaces, live and after reading back", async () => {
    const writer = await store.create(root);
    const rootId = writer.lastId;
    const history: Turn[] = [user("one"), answer("a1"), user("two"), answer("a2")];
    const recorder = createHistoryRecorder({ writer, source: { history }, rootId, alreadyWritten: 0 });
    await recorder.flush();
    const before = recorder.entries().map((e) => e?.id);
    expect(before.every((id) => typeof id === "string")).toBe(true);
    expect(recorder.entries()[0]?.parentId).toBe(rootId);
    expect(recorder.entries()[2]?.parentId).toBe(before[1]);

    // A compaction: a summary replaces the first exchange, the rest is kept (the same objects).
    const kept = history.slice(2);
    const summary: Turn = {
      kind: "summary",
      content: "Task: one",
      task: "one",
      instructions: [],
      filesTouched: [],
      summary: "S",
      replacedTurns: 2,
      replacedResponses: 1,
      timestamp: ts,
    };
    history.splice(0, history.length, summary, ...kept);
    await recorder.flush();
    const after = recorder.entries();
    expect(after[0]?.parentId).toBe(rootId);
    expect(after[1]?.id).not.toBe(before[2]);
    expect(after[1]?.aliases).toEqual([before[2]]);

    // Checkpoints taken under the old id still belong to the message.
    const checkpoint = {
      id: "c1",
      tree: "t1",
      label: "edit",
      userMessageId: before[2] as string,
      createdAt: ts,
    };
    const groups = [{ userMessageId: before[2], checkpoints: [checkpoint] }];
    expect(planRewindTargets(history, after, groups).map((t) => [t.text, t.own.length])).toEqual([
      ["two", 1],
    ]);

    await writer.close();
    const stored = readStoredSession(await store.load(writer.sessionId, root));
    expect(stored.turns.map((t) => t.kind)).toEqual(["summary", "user", "assistant"]);
    expect(stored.entries.map((e) => e?.id)).toEqual(after.map((e) => e?.id));
    expect(stored.entries[1]?.aliases).toEqual([before[2]]);
    expect(planRewindTargets(stored.turns, stored.entries, groups)[0]?.checkpoint?.id).toBe("c1");
  });
});
