import type { Turn } from "@attractor/agent";
import type { Checkpoint, CheckpointGroup } from "../checkpoints/index.js";
import type { EntryRef } from "./history-recorder.js";
import type { RewindTarget } from "./types.js";

/**
 * The user messages of a history, oldest first, each with the checkpoints that can put the files
 * back to before it. Checkpoints name the transcript entry of the message they were taken for,
 * and every message that changed files has one of its own (taken before its first change).
 */
export function planRewindTargets(
  history: readonly Turn[],
  entries: readonly (EntryRef | undefined)[],
  groups: readonly CheckpointGroup[],
): RewindTarget[] {
  const byMessage = new Map<string, Checkpoint[]>();
  for (const group of groups) {
    if (group.userMessageId === undefined) continue;
    byMessage.set(group.userMessageId, [...(byMessage.get(group.userMessageId) ?? []), ...group.checkpoints]);
  }
  const messages: { turnIndex: number; text: string; id: string | undefined; own: Checkpoint[] }[] = [];
  history.forEach((turn, turnIndex) => {
    if (turn.kind !== "user") return;
    const ref = entries[turnIndex];
    const ids = ref ? [ref.id, ...ref.aliases] : [];
    const own = distinct(ids.flatMap((id) => byMessage.get(id) ?? []));
    messages.push({ turnIndex, text: turn.content, id: ref?.id, own });
  });
  const targets: RewindTarget[] = [];
  let later: Checkpoint[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as (typeof messages)[number];
    // A message that changed nothing: the files before it are those before the next change.
    const checkpoint = m.own[0] ?? later[0];
    later = distinct([...m.own, ...later]);
    targets.unshift({
      turnIndex: m.turnIndex,
      text: m.text,
      userMessageId: m.id,
      changes: later.length,
      ...(checkpoint !== undefined && { checkpoint }),
      own: m.own,
    });
  }
  return targets;
}

/** Checkpoints without repeats, oldest first (stable for equal times). */
function distinct(checkpoints: readonly Checkpoint[]): Checkpoint[] {
  const seen = new Map<string, Checkpoint>();
  for (const c of checkpoints) if (!seen.has(c.id)) seen.set(c.id, c);
  return [...seen.values()].sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
  );
}
