import { findFencedBlocks, TOOL_CALL_FENCE } from "./fenced-calls.js";
import { extractBalancedJson, parseLooseJson } from "./json-repair.js";

export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";

export interface PromptedToolCall {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The markup as the model wrote it. */
  readonly raw: string;
  /** True when the JSON had to be repaired: closing brackets added, or fixed by jsonrepair. */
  readonly repaired: boolean;
}

export interface PromptedParseIssue {
  readonly raw: string;
  readonly message: string;
}

export interface PromptedParseResult {
  readonly calls: readonly PromptedToolCall[];
  /** Blocks that looked like calls but could not be read; report them to the model. */
  readonly issues: readonly PromptedParseIssue[];
}

export interface ParseOptions {
  /** The parameter names of a tool, used to map path aliases onto the tool's own parameter. */
  readonly parametersOf?: (toolName: string) => readonly string[] | undefined;
}

const NAME_KEYS = ["name", "tool", "tool_name", "function"] as const;
const ARG_KEYS = ["arguments", "args", "params", "parameters", "input"] as const;
const PATH_ALIASES: Readonly<Record<string, readonly string[]>> = {
  file_path: ["path", "file", "filePath", "filepath", "filename", "file_name"],
  path: ["file_path", "filePath", "file", "dir", "directory"],
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function nameOf(obj: Json): { name?: string; nested?: Json } {
  for (const key of NAME_KEYS) {
    const v = obj[key];
    if (typeof v === "string" && v.trim() !== "") return { name: v.trim() };
    // OpenAI-style {"function": {"name": …, "arguments": …}} written out by the model.
    if (isObject(v) && typeof v.name === "string") return { name: v.name.trim(), nested: v };
  }
  return {};
}

function argsOf(obj: Json): Json | undefined {
  for (const key of ARG_KEYS) {
    const v = obj[key];
    if (isObject(v)) return v;
    if (typeof v === "string") {
      try {
        const parsed: unknown = JSON.parse(v);
        if (isObject(parsed)) return parsed;
      } catch {}
    }
  }
  return undefined;
}

function applyAliases(args: Json, params: readonly string[] | undefined): Json {
  if (!params) return args;
  const out: Json = { ...args };
  for (const [target, aliases] of Object.entries(PATH_ALIASES)) {
    if (!params.includes(target) || target in out) continue;
    const alias = aliases.find((a) => a in out && !params.includes(a));
    if (alias !== undefined) {
      out[target] = out[alias];
      delete out[alias];
    }
  }
  return out;
}

/** Reads one call object; a message instead when it is not one. */
function toCall(obj: Json, raw: string, repaired: boolean, options: ParseOptions): PromptedToolCall | string {
  const { name, nested } = nameOf(obj);
  if (name === undefined) return 'the tool call has no "name"';
  let args = (nested && argsOf(nested)) ?? argsOf(obj);
  if (args === undefined) {
    args = {};
    for (const [k, v] of Object.entries(obj)) {
      if (!(NAME_KEYS as readonly string[]).includes(k) && !(ARG_KEYS as readonly string[]).includes(k))
        args[k] = v;
    }
  }
  return { name, arguments: applyAliases(args, options.parametersOf?.(name)), raw, repaired };
}

/** Spans of complete and trailing-unclosed <tool_call> blocks, in order. */
export function findToolCallBlocks(
  text: string,
): { start: number; end: number; inner: string; closed: boolean }[] {
  const blocks: { start: number; end: number; inner: string; closed: boolean }[] = [];
  let from = 0;
  while (true) {
    const start = text.indexOf(TOOL_CALL_OPEN, from);
    if (start < 0) return blocks;
    const innerStart = start + TOOL_CALL_OPEN.length;
    const close = text.indexOf(TOOL_CALL_CLOSE, innerStart);
    const nextOpen = text.indexOf(TOOL_CALL_OPEN, innerStart);
    if (close >= 0 && (nextOpen < 0 || close < nextOpen)) {
      blocks.push({
        start,
        end: close + TOOL_CALL_CLOSE.length,
        inner: text.slice(innerStart, close),
        closed: true,
      });
      from = close + TOOL_CALL_CLOSE.length;
    } else {
      // No close tag before the next call (or the end): the call was cut off or the tag forgotten.
      const end = nextOpen >= 0 ? nextOpen : text.length;
      blocks.push({ start, end, inner: text.slice(innerStart, end), closed: false });
      from = end;
    }
  }
}

/** A span of model text that holds (or was meant to hold) tool calls. */
export interface CallBlock {
  readonly start: number;
  readonly end: number;
  readonly inner: string;
  readonly closed: boolean;
}

const NAME_GUESS = /["']?(?:name|tool|tool_name|function)["']?\s*:\s*["']([^"'\\]{1,100})["']/;

/**
 * Whether a fenced block was meant as a tool call: a ```tool_call fence always is; a ```json one
 * when its object (read leniently, or failing that its "name" field) names one of the tools.
 */
export function meantAsCall(open: string, inner: string, options: ParseOptions): boolean {
  if (open === TOOL_CALL_FENCE) return true;
  const parametersOf = options.parametersOf;
  if (parametersOf === undefined) return false;
  const brace = inner.search(/\S/);
  if (brace === -1 || inner[brace] !== "{") return false;
  const json = extractBalancedJson(inner, brace);
  const parsed = json === undefined ? undefined : parseLooseJson(json.json);
  if (parsed?.ok && isObject(parsed.value)) {
    const { name } = nameOf(parsed.value);
    return name !== undefined && parametersOf(name) !== undefined;
  }
  const guess = NAME_GUESS.exec(inner)?.[1]?.trim();
  return guess !== undefined && parametersOf(guess) !== undefined;
}

/**
 * The blocks of a reply that hold tool calls: `<tool_call>` tags; fenced ```json / ```tool_call
 * blocks meant as calls (see meantAsCall) outside those tags; and, when nothing else is found and
 * the tools are known, a reply that is nothing but one call object.
 */
export function findCallBlocks(text: string, options: ParseOptions = {}): CallBlock[] {
  const tagged: CallBlock[] = findToolCallBlocks(text);
  const overlaps = (b: { start: number; end: number }) =>
    tagged.some((t) => b.start < t.end && t.start < b.end);
  const fenced = findFencedBlocks(text).filter((b) => !overlaps(b) && meantAsCall(b.open, b.inner, options));
  const blocks = [...tagged, ...fenced].sort((a, b) => a.start - b.start);
  if (blocks.length > 0 || options.parametersOf === undefined) return blocks;
  const trimmed = text.trim();
  if (trimmed.startsWith("{") && trimmed.endsWith("}") && meantAsCall("```json", trimmed, options)) {
    const start = text.indexOf(trimmed);
    return [{ start, end: start + trimmed.length, inner: trimmed, closed: true }];
  }
  return [];
}

/**
 * Extracts tool calls written as `<tool_call>{"name": …, "arguments": {…}}</tool_call>` from model
 * text. Tolerates the quirks of small models (name and argument field aliases, arguments at the top
 * level, several objects in one block, calls inside code fences, cut-off JSON, JSON that jsonrepair
 * can fix) and never throws. Besides `<tool_call>` blocks, only the blocks findCallBlocks accepts
 * (fenced calls, a reply that is one call) yield calls.
 */
export function parseToolCalls(text: string, options: ParseOptions = {}): PromptedParseResult {
  const calls: PromptedToolCall[] = [];
  const issues: PromptedParseIssue[] = [];
  for (const block of findCallBlocks(text, options)) {
    const raw = text.slice(block.start, block.end);
    let i = block.inner.indexOf("{");
    if (i < 0) {
      issues.push({ raw, message: "no JSON object in the tool call block" });
      continue;
    }
    let found = 0;
    while (i >= 0) {
      const json = extractBalancedJson(block.inner, i);
      if (!json) {
        issues.push({ raw, message: "unbalanced brackets in the tool call JSON" });
        break;
      }
      if (json.cutMidValue) {
        issues.push({
          raw,
          message: "the tool call was cut off in the middle of a value; send the whole call again",
        });
        break;
      }
      // A cut-off call is only closed, never guessed at: jsonrepair would invent structure there.
      const parsed = parseLooseJson(json.json, json.complete);
      if (!parsed.ok) {
        issues.push({
          raw,
          message: `${json.complete ? "invalid" : "cut-off"} tool call JSON: ${parsed.message}`,
        });
        break;
      }
      const objects = isObject(parsed.value) ? [parsed.value] : [];
      for (const obj of objects) {
        const call = toCall(obj, raw, !json.complete || parsed.repaired, options);
        if (typeof call === "string") issues.push({ raw, message: call });
        else {
          calls.push(call);
          found++;
        }
      }
      if (!json.complete) break;
      i = block.inner.indexOf("{", json.end);
      // Only further top-level objects count, not stray braces in trailing prose.
      if (i >= 0 && block.inner.slice(json.end, i).trim().replace(/^,/, "").trim() !== "") break;
    }
    if (found === 0 && !issues.some((x) => x.raw === raw))
      issues.push({ raw, message: "no tool call found in block" });
  }
  return { calls, issues };
}

/** The text with tool-call markup removed (and code fences left empty by that), for display. */
export function stripToolCalls(text: string, options: ParseOptions = {}): string {
  let out = "";
  let from = 0;
  for (const block of findCallBlocks(text, options)) {
    out += text.slice(from, block.start);
    from = block.end;
  }
  out += text.slice(from);
  return out
    .replace(/```[a-zA-Z]*\s*```/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
