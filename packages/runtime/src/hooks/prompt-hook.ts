import type { HookVerdict } from "./hook-output.js";

/** Asks the session's model one question and resolves its text answer. */
export type PromptEvaluator = (prompt: string, signal: AbortSignal) => Promise<string>;

/**
 * What the model is told besides the hook's own prompt: answer with JSON only, in the shape
 * Claude Code's prompt hooks use.
 */
const INSTRUCTIONS =
  'Answer with one JSON object and nothing else: {"ok": true} to let this go ahead, or {"ok": false, "reason": "why"} to stop it.';

/** The hook's prompt with `$ARGUMENTS` replaced by the hook input (appended when absent), and the answer format. */
export function promptHookText(prompt: string, inputJson: string): string {
  const body = prompt.includes("$ARGUMENTS")
    ? prompt.split("$ARGUMENTS").join(inputJson)
    : `${prompt}\n\nHook input:\n${inputJson}`;
  return `${body}\n\n${INSTRUCTIONS}`;
}

/**
 * Reads the model's answer as Claude Code does: `{"ok": false, "reason"}` or
 * `{"decision": "block", "reason"}` blocks; `{"ok": true}` or `{"decision": "approve"}` lets it
 * go ahead. An answer that is not such JSON is a hook error (shown, not blocking), never a
 * silent approval or block.
 */
export function promptHookVerdict(answer: string, label: string): HookVerdict {
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  let value: Record<string, unknown> | undefined;
  if (start >= 0 && end > start) {
    try {
      const parsed: unknown = JSON.parse(answer.slice(start, end + 1));
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
        value = parsed as Record<string, unknown>;
    } catch {
      value = undefined;
    }
  }
  const reason = typeof value?.reason === "string" ? value.reason : undefined;
  if (value?.ok === false || value?.decision === "block")
    return { kind: "block", message: reason ?? `${label} said no` };
  if (value?.ok === true || value?.decision === "approve" || value?.decision === "allow")
    return { kind: "ok", stdout: "", json: { ...(reason !== undefined && { reason }) } };
  return { kind: "error", message: `${label} gave no decision: ${JSON.stringify(answer.slice(0, 200))}` };
}

/** Runs a prompt hook within its timeout; a failed or late answer is a hook error. */
export async function runPromptHook(
  evaluate: PromptEvaluator | undefined,
  prompt: string,
  inputJson: string,
  timeoutMs: number,
): Promise<HookVerdict> {
  const label = "prompt hook";
  if (!evaluate) return { kind: "error", message: `${label} not run: no model to ask` };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const answer = await evaluate(promptHookText(prompt, inputJson), controller.signal);
    return promptHookVerdict(answer, label);
  } catch (error) {
    const why = controller.signal.aborted ? `timed out after ${timeoutMs / 1000}s` : (error as Error).message;
    return { kind: "error", message: `${label} failed: ${why}` };
  } finally {
    clearTimeout(timer);
  }
}
