import {
  type McpElicitationField,
  type McpElicitationRequest,
  type McpElicitationResult,
  McpRequestRefused,
  type McpSamplingRequest,
  type McpSamplingResult,
} from "@attractor/agent";

/** What the user settings' `mcpSampling` says about servers asking for the model. */
export type McpSamplingSetting = "ask" | "allow" | "deny";

/** A question for the user, as the runtime's ask_user puts it (declared here: runtime/ imports mcp/). */
interface AskUserQuestion {
  readonly question: string;
  readonly options?: readonly string[];
}

type Ask = (question: AskUserQuestion) => Promise<string>;

const ALLOW = "Allow";
const DENY = "Deny";
const ANSWER = "Answer";
const DECLINE = "Decline";
const CANCEL = "Cancel";
/** How often a field's answer may be invalid before the form is cancelled. */
const ATTEMPTS = 3;
const PREVIEW_CHARS = 400;

function preview(request: McpSamplingRequest): string {
  const last = request.messages.at(-1);
  const blocks = last === undefined ? [] : Array.isArray(last.content) ? last.content : [last.content];
  const text = blocks
    .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : `[${b.type}]`))
    .join(" ")
    .trim();
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

/**
 * The handler for servers' sampling requests: "deny" refuses, "allow" runs them, "ask" asks the
 * user each time, and refuses when there is no user (headless) — servers cannot spend the user's
 * model without their say.
 */
export function samplingHandler(options: {
  readonly setting: McpSamplingSetting;
  readonly headless: boolean;
  readonly ask: Ask;
  readonly model: () => string;
  readonly complete: (request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingResult>;
}): (request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingResult> {
  return async (request, signal) => {
    const refuse = (why: string) => new McpRequestRefused(`The sampling request was refused: ${why}`);
    if (options.setting === "deny") throw refuse('mcpSampling is "deny" in the settings.');
    if (options.setting === "ask") {
      if (options.headless)
        throw refuse('nobody can approve it in a headless run (set mcpSampling to "allow" to permit it).');
      const answer = await options.ask({
        question: `MCP server "${request.server}" asks to use your model (${options.model()}, up to ${request.maxTokens} tokens) for:\n${preview(request)}`,
        options: [ALLOW, DENY],
      });
      if (answer !== ALLOW) throw refuse("the user declined the sampling request.");
    }
    return options.complete(request, signal);
  };
}

/** Parses one typed answer for a field; a string is the problem with it. */
function parseAnswer(field: McpElicitationField, text: string): { value: unknown } | string {
  const t = text.trim();
  switch (field.kind) {
    case "text":
      return { value: t };
    case "boolean":
      return /^(y|yes|true)$/i.test(t)
        ? { value: true }
        : /^(n|no|false)$/i.test(t)
          ? { value: false }
          : "yes or no";
    case "number": {
      const n = Number(t);
      if (t === "" || !Number.isFinite(n)) return "a number";
      if (field.integer && !Number.isInteger(n)) return "a whole number";
      if (field.minimum !== undefined && n < field.minimum) return `at least ${field.minimum}`;
      if (field.maximum !== undefined && n > field.maximum) return `at most ${field.maximum}`;
      return { value: n };
    }
    case "choice": {
      const pick = (s: string) =>
        field.options.find((o) => o.label === s.trim() || o.value === s.trim())?.value;
      if (!field.multiple) {
        const v = pick(t);
        return v === undefined ? `one of ${field.options.map((o) => o.label).join(", ")}` : { value: v };
      }
      const values = t.split(",").map(pick);
      return values.some((v) => v === undefined) || values.length === 0
        ? `some of ${field.options.map((o) => o.label).join(", ")}, separated by commas`
        : { value: values };
    }
  }
}

function fieldQuestion(field: McpElicitationField, problem?: string): AskUserQuestion {
  const about = field.description ? ` — ${field.description}` : "";
  const optional = field.required ? "" : " (optional: leave empty to skip)";
  const again = problem ? `\nPlease answer with ${problem}.` : "";
  const question = `${field.title}${about}${optional}${again}`;
  if (field.kind === "boolean") return { question, options: ["yes", "no"] };
  if (field.kind === "choice" && !field.multiple)
    return { question, options: field.options.map((o) => o.label) };
  if (field.kind === "choice")
    return {
      question: `${question}\nChoose from: ${field.options.map((o) => o.label).join(", ")} (comma-separated)`,
    };
  return { question };
}

/**
 * The handler for servers' form elicitations: headless runs decline (nobody to ask); otherwise
 * the user is asked whether to answer, then field by field, each answer checked against the
 * field's type and bounds.
 */
export function elicitationHandler(options: {
  readonly headless: boolean;
  readonly ask: Ask;
}): (request: McpElicitationRequest, signal: AbortSignal) => Promise<McpElicitationResult> {
  return async (request, signal) => {
    if (options.headless) return { action: "decline" };
    const names = request.fields.map((f) => f.title).join(", ");
    const start = await options.ask({
      question: `MCP server "${request.server}" asks for some information: ${request.message}${names ? `\nFields: ${names}` : ""}`,
      options: [ANSWER, DECLINE, CANCEL],
    });
    if (start === DECLINE) return { action: "decline" };
    if (start !== ANSWER) return { action: "cancel" };
    const content: Record<string, string | number | boolean | readonly string[]> = {};
    for (const field of request.fields) {
      let problem: string | undefined;
      let done = false;
      for (let attempt = 0; attempt < ATTEMPTS && !done; attempt++) {
        if (signal.aborted) return { action: "cancel" };
        const text = await options.ask(fieldQuestion(field, problem));
        if (text.trim() === "" && !field.required) {
          done = true;
          break;
        }
        const parsed = parseAnswer(field, text);
        if (typeof parsed === "string") {
          problem = parsed;
          continue;
        }
        content[field.name] = parsed.value as string;
        done = true;
      }
      if (!done) return { action: "cancel" };
    }
    return { action: "accept", content };
  };
}
