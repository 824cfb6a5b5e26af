// Checks request bodies against the providers' official request specifications (specs/, see
// the package README) and against the rules the APIs enforce across fields, which a schema cannot
// say: role order, where tool results go, cache breakpoints, thinking.
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";

/** The wire protocols whose requests are checked. */
export type Protocol = "openai-responses" | "openai-chat-completions" | "anthropic-messages" | "gemini";

const SCHEMA_FILES: Readonly<Record<Protocol, string>> = {
  "openai-responses": "openai-responses.schema.json",
  "openai-chat-completions": "openai-chat-completions.schema.json",
  "anthropic-messages": "anthropic-messages.schema.json",
  gemini: "gemini-generate-content.schema.json",
};

/** The protocol a request path belongs to, or undefined for paths that carry no model request. */
export function protocolOf(method: string, path: string): Protocol | undefined {
  if (method !== "POST") return undefined;
  if (/\/responses$/.test(path)) return "openai-responses";
  if (/\/chat\/completions$/.test(path)) return "openai-chat-completions";
  if (/\/messages$/.test(path)) return "anthropic-messages";
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)) return "gemini";
  return undefined;
}

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new Map<Protocol, ValidateFunction>();

function validatorFor(protocol: Protocol): ValidateFunction {
  let validate = compiled.get(protocol);
  if (validate === undefined) {
    const url = new URL(`./specs/${SCHEMA_FILES[protocol]}`, import.meta.url);
    const { $comment: _c, "x-source": _s, ...schema } = JSON.parse(readFileSync(url, "utf8"));
    validate = ajv.compile(schema);
    compiled.set(protocol, validate);
  }
  return validate;
}

/** The spec version a protocol's schema was derived from, as recorded in the schema file. */
export function specSource(protocol: Protocol): Record<string, string> {
  const url = new URL(`./specs/${SCHEMA_FILES[protocol]}`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"))["x-source"];
}

// biome-ignore lint/suspicious/noExplicitAny: bodies are arbitrary JSON
type Json = any;

/**
 * What is wrong with a request body: schema violations (unknown fields, wrong types, missing
 * required fields, invalid enum values) and cross-field rule violations; empty when it is valid.
 */
export function specViolations(
  protocol: Protocol,
  body: unknown,
  path = "",
  allowFields: readonly string[] = [],
): string[] {
  const validate = validatorFor(protocol);
  const errors: string[] = [];
  if (!validate(withoutExtensions(protocol, body, allowFields))) {
    // anyOf branches report every miss; the deepest, most specific ones say what is wrong.
    const seen = new Set<string>();
    for (const e of validate.errors ?? []) {
      if (e.keyword === "anyOf" || e.keyword === "oneOf" || e.keyword === "$ref") continue;
      const extra = e.keyword === "additionalProperties" ? ` (${String(e.params.additionalProperty)})` : "";
      const text = `${e.instancePath || "/"} ${e.message ?? e.keyword}${extra}`;
      if (!seen.has(text)) seen.add(text);
    }
    errors.push(...[...seen].slice(0, 12));
    if (errors.length === 0) errors.push("the body does not match the request schema");
  }
  errors.push(...RULES[protocol](body as Json));
  const model = /\/models\/([^/:]+):/.exec(path)?.[1];
  if (protocol === "gemini" && model !== undefined && /gemini-([3-9]|\d{2})/.test(model))
    errors.push(...gemini3Signatures(body as Json));
  return errors;
}

/** Gemini 3 rejects a model turn whose first function call carries no thought signature. */
function gemini3Signatures(body: Json): string[] {
  const errors: string[] = [];
  for (const [i, c] of (Array.isArray(body?.contents) ? body.contents : []).entries()) {
    if (c.role !== "model") continue;
    const first = (c.parts ?? []).find((p: Json) => p.functionCall !== undefined);
    if (first !== undefined && typeof first.thoughtSignature !== "string")
      errors.push(
        `contents[${i}]: the first functionCall of a model turn needs a thoughtSignature on Gemini 3`,
      );
  }
  return errors;
}

/**
 * Chat Completions servers other than OpenAI's document fields of their own on assistant messages:
 * `reasoning_content` (DeepSeek, vLLM; sent only when a profile asks) and `reasoning_details`
 * (OpenRouter, sent back as it came). They are taken out before the OpenAI schema is applied;
 * `allowFields` names top-level extension fields a test sends on purpose.
 */
function withoutExtensions(protocol: Protocol, body: unknown, allowFields: readonly string[]): unknown {
  if (typeof body !== "object" || body === null) return body;
  const copy: Json = { ...body };
  for (const f of allowFields) delete copy[f];
  if (protocol === "openai-chat-completions" && Array.isArray(copy.messages)) {
    copy.messages = copy.messages.map((m: Json) => {
      if (m?.role !== "assistant") return m;
      const { reasoning_content: _c, reasoning_details: _d, ...rest } = m;
      return rest;
    });
  }
  return copy;
}

const RULES: Readonly<Record<Protocol, (body: Json) => string[]>> = {
  "openai-responses": responsesRules,
  "openai-chat-completions": chatRules,
  "anthropic-messages": anthropicRules,
  gemini: geminiRules,
};

function responsesRules(body: Json): string[] {
  const errors: string[] = [];
  const input: Json[] = Array.isArray(body?.input) ? body.input : [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [i, item] of input.entries()) {
    if (item?.type === "function_call") calls.add(item.call_id);
    if (item?.type === "function_call_output") {
      if (!calls.has(item.call_id))
        errors.push(`input[${i}]: output for call ${item.call_id} before its call`);
      answered.add(item.call_id);
    }
    if (item?.type === "reasoning" && body.store === false && typeof item.encrypted_content !== "string")
      errors.push(`input[${i}]: a reasoning item without encrypted_content cannot be used with store: false`);
  }
  for (const id of calls) if (!answered.has(id)) errors.push(`call ${id} has no function_call_output`);
  return errors;
}

function chatRules(body: Json): string[] {
  const errors: string[] = [];
  const messages: Json[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role === "tool" && !(messages[i - 1]?.role === "tool" || messages[i - 1]?.tool_calls))
      errors.push(`messages[${i}]: a tool message must follow an assistant message with tool_calls`);
    if (m?.role !== "assistant" || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) continue;
    const ids: string[] = m.tool_calls.map((c: Json) => c.id);
    const following: string[] = [];
    for (let j = i + 1; j < messages.length && messages[j]?.role === "tool"; j++)
      following.push(messages[j].tool_call_id);
    for (const id of ids)
      if (!following.includes(id))
        errors.push(`messages[${i}]: tool call ${id} is not answered by the tool messages right after it`);
    for (const id of following)
      if (!ids.includes(id)) errors.push(`messages[${i}]: tool message for unknown call ${id}`);
  }
  return errors;
}

const blocksOf = (content: Json): Json[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];

function anthropicRules(body: Json): string[] {
  const errors: string[] = [];
  const messages: Json[] = Array.isArray(body?.messages) ? body.messages : [];
  if (messages[0]?.role !== undefined && messages[0].role !== "user")
    errors.push("messages[0]: the first message must be a user message");
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0 && messages[i - 1].role === m.role) errors.push(`messages[${i}]: roles must alternate`);
    const blocks = blocksOf(m.content);
    for (const [k, b] of blocks.entries()) {
      if (b?.type === "text" && b.text === "") errors.push(`messages[${i}].content[${k}]: empty text block`);
    }
    if (m.role === "user") {
      const firstOther = blocks.findIndex((b) => b?.type !== "tool_result");
      const lastResult = blocks.map((b) => b?.type).lastIndexOf("tool_result");
      if (firstOther !== -1 && lastResult > firstOther)
        errors.push(`messages[${i}]: tool_result blocks must come first in a user message`);
    }
    const uses = blocks.filter((b) => b?.type === "tool_use").map((b) => b.id);
    if (m.role === "assistant" && uses.length > 0) {
      const next = blocksOf(messages[i + 1]?.content);
      const results = next.filter((b) => b?.type === "tool_result").map((b) => b.tool_use_id);
      if (messages[i + 1] !== undefined) {
        for (const id of uses)
          if (!results.includes(id))
            errors.push(`messages[${i}]: tool_use ${id} has no tool_result right after`);
      }
    }
    if (m.role === "user" && i > 0) {
      const prevUses = blocksOf(messages[i - 1]?.content)
        .filter((b) => b?.type === "tool_use")
        .map((b) => b.id);
      for (const b of blocks)
        if (b?.type === "tool_result" && !prevUses.includes(b.tool_use_id))
          errors.push(
            `messages[${i}]: tool_result for ${b.tool_use_id} answers no tool_use of the turn before`,
          );
    }
  }
  const family = /^claude-(?:opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?/.exec(String(body?.model));
  const recent =
    family !== null && (Number(family[1]) > 4 || (family[1] === "4" && Number(family[2] ?? 0) >= 5));
  if (recent && body.temperature !== undefined && body.top_p !== undefined)
    errors.push("Claude 4.5 and later take temperature or top_p, not both");
  const marked = JSON.stringify(body).match(/"cache_control":\{/g)?.length ?? 0;
  if (marked > 4) errors.push(`${marked} cache_control breakpoints; at most 4 are allowed`);
  const thinking = body?.thinking;
  if (thinking?.type === "enabled" || thinking?.type === "adaptive") {
    if (thinking.type === "enabled") {
      if (!(thinking.budget_tokens >= 1024)) errors.push("thinking.budget_tokens must be at least 1024");
      if (!(thinking.budget_tokens < body.max_tokens))
        errors.push("thinking.budget_tokens must be below max_tokens");
    }
    if (body.temperature !== undefined && body.temperature !== 1)
      errors.push("temperature cannot be changed with thinking on");
    if (body.top_k !== undefined) errors.push("top_k cannot be set with thinking on");
    if (body.top_p !== undefined && body.top_p < 0.95)
      errors.push("top_p must be at least 0.95 with thinking on");
    if (body.tool_choice?.type === "any" || body.tool_choice?.type === "tool")
      errors.push("tool_choice cannot force a tool with thinking on");
    const last = [...messages].reverse().find((m: Json) => m.role === "assistant");
    const blocks = blocksOf(last?.content);
    if (blocks.some((b) => b?.type === "tool_use") && !/^(redacted_)?thinking$/.test(String(blocks[0]?.type)))
      errors.push("with thinking on, the last assistant tool turn must start with a thinking block");
  }
  return errors;
}

function geminiRules(body: Json): string[] {
  const errors: string[] = [];
  const contents: Json[] = Array.isArray(body?.contents) ? body.contents : [];
  if (contents[0]?.role === "model") errors.push("contents[0]: the conversation must start with a user turn");
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i];
    if (i > 0 && contents[i - 1].role === c.role)
      errors.push(`contents[${i}]: user and model turns must alternate`);
    const parts: Json[] = Array.isArray(c.parts) ? c.parts : [];
    if (c.role === "model" && parts.some((p) => p.functionResponse !== undefined))
      errors.push(`contents[${i}]: a functionResponse in a model turn`);
    const calls = parts.filter((p) => p.functionCall !== undefined).map((p) => p.functionCall.name);
    if (c.role !== "model" || calls.length === 0 || contents[i + 1] === undefined) continue;
    const next: Json[] = contents[i + 1].parts ?? [];
    const responses: string[] = [];
    const callIds = parts.filter((p) => p.functionCall !== undefined).map((p) => p.functionCall.id);
    for (const p of next) {
      if (p.functionResponse === undefined) break;
      const id = callIds[responses.length];
      if (id !== undefined && p.functionResponse.id !== id)
        errors.push(`contents[${i + 1}]: the response to call ${id} must echo its id`);
      responses.push(p.functionResponse.name);
    }
    if (responses.join(",") !== calls.join(","))
      errors.push(
        `contents[${i + 1}]: the function responses (${responses.join(",")}) must open the next user turn, one per call in call order (${calls.join(",")})`,
      );
  }
  return errors;
}
