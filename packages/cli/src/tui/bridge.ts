import type { SandboxEscapeAnswer, SandboxEscapeRequest } from "@attractor/agent";
import type { AskUserQuestion, RuntimeUi } from "@attractor/runtime";
import type { AskAnswer, PermissionRequest } from "@attractor/runtime/permissions";
import { visibleControlsDeep } from "../terminal/visible-controls.js";

/** A question the runtime is waiting on, oldest first in the queue. */
export type PendingPrompt =
  | { readonly kind: "permission"; readonly id: number; readonly request: PermissionRequest }
  | { readonly kind: "question"; readonly id: number; readonly question: AskUserQuestion }
  | { readonly kind: "sandbox"; readonly id: number; readonly request: SandboxEscapeRequest };

/** What a question resolves with when the user dismisses it (Esc, interrupt, exit). */
export const DISMISSED_ANSWER = "The user dismissed the question without answering.";

/**
 * The bridge between a runtime and the interactive UI. The runtime calls `askPermission`,
 * `askUser` and `askSandboxEscape` (it is a RuntimeUi); each call becomes a pending prompt in a FIFO queue and its
 * promise stays open until the UI answers it. The React tree reads `current()` and re-renders on
 * `subscribe`; the prompt components call `answerPermission` / `answerQuestion`. Prompts asked
 * before the UI is mounted simply wait in the queue.
 */
export interface InteractiveUi extends RuntimeUi {
  /** The prompt to show now (the oldest unanswered one), or undefined. */
  current(): PendingPrompt | undefined;
  /** How many prompts are waiting, the current one included. */
  pendingCount(): number;
  /** Calls `listener` after every change of the queue; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Answers permission prompt `id`; ignored when it is no longer pending. */
  answerPermission(id: number, answer: AskAnswer): void;
  /** Answers question `id` with an option or free text; ignored when it is no longer pending. */
  answerQuestion(id: number, answer: string): void;
  /** Answers sandbox prompt `id` (re-run outside the sandbox?); ignored when it is no longer pending. */
  answerSandbox(id: number, answer: SandboxEscapeAnswer): void;
  /** Settles every pending prompt: permissions with "abort", questions with DISMISSED_ANSWER, sandbox prompts with "no". */
  cancelAll(): void;
}

interface Entry {
  readonly prompt: PendingPrompt;
  readonly settle: (value: AskAnswer | SandboxEscapeAnswer | string) => void;
}

/** Creates the RuntimeUi bridge that `runInteractive` answers; pass it to createRuntime. */
export function createInteractiveUi(): InteractiveUi {
  const queue: Entry[] = [];
  const listeners = new Set<() => void>();
  let nextId = 1;
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  const enqueue = <T extends AskAnswer | SandboxEscapeAnswer | string>(
    make: (id: number) => PendingPrompt,
  ): Promise<T> =>
    new Promise<T>((resolve) => {
      const prompt = make(nextId++);
      queue.push({ prompt, settle: (v) => resolve(v as T) });
      notify();
    });
  const settle = (
    id: number,
    kind: PendingPrompt["kind"],
    value: AskAnswer | SandboxEscapeAnswer | string,
  ) => {
    const index = queue.findIndex((e) => e.prompt.id === id && e.prompt.kind === kind);
    if (index < 0) return;
    const [entry] = queue.splice(index, 1);
    entry?.settle(value);
    notify();
  };

  return {
    // What a prompt shows comes from the model: its control sequences are made visible.
    askPermission: (request) =>
      enqueue<AskAnswer>((id) => ({ kind: "permission", id, request: visibleControlsDeep(request) })),
    askUser: (question) =>
      enqueue<string>((id) => ({ kind: "question", id, question: visibleControlsDeep(question) })),
    askSandboxEscape: (request) =>
      enqueue<SandboxEscapeAnswer>((id) => ({ kind: "sandbox", id, request: visibleControlsDeep(request) })),
    current: () => queue[0]?.prompt,
    pendingCount: () => queue.length,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    answerPermission: (id, answer) => settle(id, "permission", answer),
    answerQuestion: (id, answer) => settle(id, "question", answer),
    answerSandbox: (id, answer) => settle(id, "sandbox", answer),
    cancelAll() {
      if (queue.length === 0) return;
      for (const entry of queue.splice(0))
        entry.settle(
          entry.prompt.kind === "permission"
            ? "abort"
            : entry.prompt.kind === "sandbox"
              ? "no"
              : DISMISSED_ANSWER,
        );
      notify();
    },
  };
}
