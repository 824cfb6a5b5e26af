import type { Checkpoint, CheckpointGroup } from "../../checkpoints/index.js";
import type { Choice, SlashCommand } from "../types.js";

/**
 * /rewind: lists the checkpoints per user message, lets the user pick one, shows what restoring
 * it would change, and restores it after a confirmation. The state replaced is snapshotted
 * first, so a later /rewind can return to it.
 */
export const rewindCommand: SlashCommand = {
  name: "rewind",
  summary: "Restore the files to a checkpoint taken before one of your messages",
  idleOnly: true,
  async run({ runtime, host }) {
    const groups = (await runtime.rewindPoints()).filter((g) => g.checkpoints.length > 0);
    if (groups.length === 0) {
      host.show({ kind: "text", tone: "info", text: "No checkpoints yet: no file has been changed." });
      return;
    }
    const text = (id: string | undefined) => (id === undefined ? undefined : runtime.userMessageText?.(id));
    const group = await host.choose("Rewind to before which message?", groupChoices(groups, text));
    if (!group) return;
    const checkpoint =
      group.checkpoints.length === 1
        ? group.checkpoints[0]
        : await host.choose("Which point of that message?", checkpointChoices(group));
    if (!checkpoint) return;
    const preview = await runtime.previewRestore(checkpoint.id);
    if (preview.files.length === 0) {
      host.show({
        kind: "text",
        tone: "info",
        text: "Nothing to restore: the files already match that checkpoint.",
      });
      return;
    }
    const count = `${preview.files.length} file${preview.files.length === 1 ? "" : "s"}`;
    host.show({
      kind: "diff",
      title: `Restoring "${checkpoint.label}" would change ${count}:`,
      files: preview.files,
      patch: preview.patch,
      truncated: preview.patchTruncated,
    });
    if (!(await host.confirm(`Restore ${count}?`))) {
      host.show({ kind: "text", tone: "info", text: "Rewind cancelled; nothing changed." });
      return;
    }
    // The state being replaced becomes a checkpoint of its own, so /rewind can return to it.
    await runtime.checkpoints.snapshot({ label: `before rewinding to "${checkpoint.label}"` });
    const result = await runtime.restore(checkpoint.id);
    host.show({
      kind: "text",
      tone: "success",
      text: `Restored ${result.files.length > 0 ? result.files.join(", ") : count}. /rewind can return to the state before.`,
    });
  },
};

/** Newest message first: what its first checkpoint was taken for, when, and how many there are. */
function groupChoices(
  groups: readonly CheckpointGroup[],
  messageText: (userMessageId: string | undefined) => string | undefined,
): Choice<CheckpointGroup>[] {
  return groups
    .map((group, i) => {
      const first = group.checkpoints[0] as Checkpoint;
      const n = group.checkpoints.length;
      const message = messageText(group.userMessageId);
      return {
        label: message ? `“${oneLine(message)}”` : `Message ${i + 1}: ${first.label}`,
        detail: `${clock(first.createdAt)} · ${n} change${n === 1 ? "" : "s"}`,
        value: group,
      };
    })
    .reverse();
}

function checkpointChoices(group: CheckpointGroup): Choice<Checkpoint>[] {
  return group.checkpoints.map((c, i) => ({
    label: i === 0 ? `Before the whole message (${c.label})` : c.label,
    detail: clock(c.createdAt),
    value: c,
  }));
}

function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toTimeString().slice(0, 8);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
