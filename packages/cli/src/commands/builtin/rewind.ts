import type { RewindTarget, Runtime } from "@attractor/runtime";
import type { Checkpoint, CheckpointGroup } from "@attractor/runtime/checkpoints";
import type { Choice, CommandHost, SlashCommand } from "../types.js";

/** What to bring back to before the chosen message. */
type Scope = "both" | "conversation" | "code";

/** A picked line of the message list: a message, or the checkpoints of no message listed. */
type Pick = { readonly kind: "message"; readonly target: RewindTarget } | { readonly kind: "other" };

/**
 * /rewind: lists the user messages of the conversation (newest first), then asks what to bring
 * back to before the one picked: code and conversation, the conversation only, or the code only.
 * The conversation is cut back there and the message is given back to edit and resend; a code
 * restore shows what it would change and asks first, and the state it replaces is snapshotted.
 * Checkpoints that belong to no message of the conversation (other conversations, states a
 * restore replaced) are under "Other checkpoints…" at the list's end, for a code restore.
 */
export const rewindCommand: SlashCommand = {
  name: "rewind",
  summary: "Go back to before one of your messages: the conversation, the files, or both",
  idleOnly: true,
  async run({ runtime, host }) {
    const targets = await runtime.rewindTargets();
    const known = new Set(targets.flatMap((t) => (t.userMessageId ? [t.userMessageId] : [])));
    for (const t of targets) for (const c of t.own) if (c.userMessageId) known.add(c.userMessageId);
    const others = (await runtime.rewindPoints()).filter(
      (g) => g.checkpoints.length > 0 && (g.userMessageId === undefined || !known.has(g.userMessageId)),
    );
    if (targets.length === 0 && others.length === 0) {
      host.show({ kind: "text", tone: "info", text: "Nothing to rewind yet: no message was sent." });
      return;
    }
    const picks: Choice<Pick>[] = [...targets].reverse().map((target) => ({
      label: `“${oneLine(target.text)}”`,
      detail: changesAfter(target.changes),
      value: { kind: "message", target },
    }));
    if (others.length > 0)
      picks.push({
        label: "Other checkpoints…",
        detail: "of other conversations, and states a restore replaced",
        value: { kind: "other" },
      });
    const pick = await host.choose("Rewind to before which message?", picks);
    if (!pick) return;
    if (pick.kind === "other") {
      await restoreOtherCheckpoint(runtime, host, others);
      return;
    }
    const { target } = pick;
    const scope = await host.choose("Restore what?", scopeChoices(target));
    if (scope === undefined || scope === "cancel") return;
    if (scope === "conversation") {
      await rewindConversation(runtime, host, target);
      return;
    }
    const checkpoint =
      scope === "code" && target.own.length > 1
        ? await host.choose("Which point of that message?", checkpointChoices(target.own))
        : target.checkpoint;
    if (!checkpoint) return;
    const count = await confirmRestore(runtime, host, checkpoint, scope);
    if (count === "cancelled") return;
    if (scope === "both") {
      await rewindConversation(runtime, host, target, count === "nothing" ? undefined : checkpoint);
      return;
    }
    if (count === "nothing") return;
    await restoreCode(runtime, host, checkpoint, count);
  },
};

/**
 * Shows what restoring `checkpoint` would change and asks; "nothing" when the files already
 * match (said so), "cancelled" when declined, else the "N files" phrase.
 */
async function confirmRestore(
  runtime: Runtime,
  host: CommandHost,
  checkpoint: Checkpoint,
  scope: Scope,
): Promise<string | "nothing" | "cancelled"> {
  const preview = await runtime.previewRestore(checkpoint.id);
  if (preview.files.length === 0) {
    host.show({
      kind: "text",
      tone: "info",
      text:
        scope === "both"
          ? "The files already match that checkpoint; rewinding the conversation only."
          : "Nothing to restore: the files already match that checkpoint.",
    });
    return "nothing";
  }
  const count = `${preview.files.length} file${preview.files.length === 1 ? "" : "s"}`;
  host.show({
    kind: "diff",
    title: `Restoring "${checkpoint.label}" would change ${count}:`,
    files: preview.files,
    patch: preview.patch,
    truncated: preview.patchTruncated,
  });
  const question = scope === "both" ? `Restore ${count} and rewind the conversation?` : `Restore ${count}?`;
  if (!(await host.confirm(question))) {
    host.show({ kind: "text", tone: "info", text: "Rewind cancelled; nothing changed." });
    return "cancelled";
  }
  return count;
}

async function rewindConversation(
  runtime: Runtime,
  host: CommandHost,
  target: RewindTarget,
  checkpoint?: Checkpoint,
): Promise<void> {
  const result = await runtime.rewindConversation(
    target.turnIndex,
    checkpoint ? { restoreCheckpoint: checkpoint.id } : {},
  );
  // The printed transcript shows the abandoned turns: print the kept conversation instead.
  host.resetScreen(true);
  const files = result.files.length > 0 ? ` Restored ${result.files.join(", ")}.${RETURN_HINT}` : "";
  host.show({
    kind: "text",
    tone: "success",
    text: `Rewound the conversation to before “${oneLine(result.text)}”; the message is back in the input to edit and send.${files}`,
  });
}

async function restoreCode(
  runtime: Runtime,
  host: CommandHost,
  checkpoint: Checkpoint,
  count: string,
): Promise<void> {
  // The state being replaced becomes a checkpoint of its own, so /rewind can return to it.
  await runtime.checkpoints.snapshot({ label: `before rewinding to "${checkpoint.label}"` });
  const result = await runtime.restore(checkpoint.id);
  host.show({
    kind: "text",
    tone: "success",
    text: `Restored ${result.files.length > 0 ? result.files.join(", ") : count}.${RETURN_HINT}`,
  });
}

/** How to get the files back after a restore. */
const RETURN_HINT = " /rewind → Other checkpoints returns the files to the state before.";

/** The code-only restore of a checkpoint of another conversation, or of no message. */
async function restoreOtherCheckpoint(
  runtime: Runtime,
  host: CommandHost,
  groups: readonly CheckpointGroup[],
): Promise<void> {
  const group = await host.choose(
    "Restore the files to before which message?",
    groups
      .map((g, i) => {
        const first = g.checkpoints[0] as Checkpoint;
        const text = g.userMessageId === undefined ? undefined : runtime.userMessageText?.(g.userMessageId);
        const n = g.checkpoints.length;
        return {
          label: text
            ? `“${oneLine(text)}”`
            : g.userMessageId === undefined
              ? first.label
              : `Message ${i + 1}: ${first.label}`,
          detail: `${clock(first.createdAt)} · ${n} change${n === 1 ? "" : "s"}`,
          value: g,
        };
      })
      .reverse(),
  );
  if (!group) return;
  const checkpoint =
    group.checkpoints.length === 1
      ? group.checkpoints[0]
      : await host.choose("Which point of that message?", checkpointChoices(group.checkpoints));
  if (!checkpoint) return;
  const count = await confirmRestore(runtime, host, checkpoint, "code");
  if (count === "nothing" || count === "cancelled") return;
  await restoreCode(runtime, host, checkpoint, count);
}

function scopeChoices(target: RewindTarget): Choice<Scope | "cancel">[] {
  if (target.checkpoint === undefined)
    return [
      { label: "Conversation only", detail: "no file changed since", value: "conversation" },
      { label: "Cancel", value: "cancel" },
    ];
  return [
    { label: "Code and conversation", value: "both" },
    { label: "Conversation only", detail: "the files stay as they are", value: "conversation" },
    { label: "Code only", detail: "the conversation goes on", value: "code" },
    { label: "Cancel", value: "cancel" },
  ];
}

function checkpointChoices(checkpoints: readonly Checkpoint[]): Choice<Checkpoint>[] {
  return checkpoints.map((c, i) => ({
    label: i === 0 ? `Before the whole message (${c.label})` : c.label,
    detail: clock(c.createdAt),
    value: c,
  }));
}

function changesAfter(n: number): string {
  return n === 0 ? "no file changes since" : `${n} file change${n === 1 ? "" : "s"} since`;
}

function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toTimeString().slice(0, 8);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
