import { EnvironmentError } from "../environment/errors.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { ToolOutput } from "../types/tool.js";
import type { LanguageServerClient } from "./client.js";
import { CodeIntelligenceError, NoLanguageServerError } from "./errors.js";
import { displayPath, uriOf } from "./format.js";
import type { LanguageServerPool } from "./manager.js";
import { type PositionQuery, resolvePosition, type ZeroBasedPosition } from "./position.js";

/** What the tools share: the environment the servers run in, the pool, and files touched. */
export interface ToolsContext {
  readonly env: ExecutionEnvironment;
  readonly pool: LanguageServerPool;
  /** Absolute paths the tools were pointed at or edits changed, for get_diagnostics without a path. */
  readonly touched: Set<string>;
  /** How long get_diagnostics waits for a server's first report on a file. */
  readonly diagnosticsTimeoutMs: number;
  /** The configured servers available in the project (for find_symbol without a path). */
  readonly availableServers: () => Promise<
    readonly { readonly id: string; readonly extensions: readonly string[] }[]
  >;
}

/** A call's resolved place: the file, its text, the 0-based position and the word there. */
export interface Place {
  readonly abs: string;
  readonly text: string;
  readonly position: ZeroBasedPosition;
  readonly label: string;
  /** The call's abort signal. */
  readonly signal?: AbortSignal;
}

/** Reads the file a call points at and resolves its position. */
export async function place(
  ctx: ToolsContext,
  execEnv: ExecutionEnvironment,
  query: PositionQuery,
  signal?: AbortSignal,
): Promise<Place> {
  const abs = execEnv.resolvePath(query.path);
  const text = await ctx.env.readFile(abs);
  const position = resolvePosition(text, query);
  const word = wordAt(text, position) ?? query.symbolName ?? "";
  const label = `${word ? `\`${word}\` at ` : ""}${displayPath(ctx.env, abs)}:${position.line + 1}:${position.character + 1}`;
  return { abs, text, position, label, ...(signal !== undefined && { signal }) };
}

function wordAt(text: string, p: ZeroBasedPosition): string | undefined {
  const line = text.split(/\r?\n/)[p.line] ?? "";
  const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);
  let a = p.character;
  let b = p.character;
  while (isWord(line[a - 1])) a--;
  while (isWord(line[b])) b++;
  return b > a ? line.slice(a, b) : undefined;
}

/** The client for a file, the file's current text shown to it. */
export async function syncedClient(
  ctx: ToolsContext,
  abs: string,
  signal?: AbortSignal,
): Promise<LanguageServerClient> {
  const client = await ctx.pool.client(await ctx.pool.targetFor(abs), signal);
  await client.sync(abs, await ctx.env.readFile(abs));
  return client;
}

/** Runs `use` with the place's server (restarted once if it stops meanwhile). */
export function atPlace<T>(
  ctx: ToolsContext,
  p: Place,
  use: (client: LanguageServerClient, uri: string) => Promise<T>,
): Promise<T> {
  return ctx.pool.withClient(
    p.abs,
    async (client) => {
      await client.sync(p.abs, p.text);
      ctx.touched.add(p.abs);
      return use(client, uriOf(p.abs));
    },
    p.signal,
  );
}

/** Expected failures as results: no server is plain information, the rest are errors. */
export function asResult(error: unknown): ToolOutput {
  if (error instanceof NoLanguageServerError) return { output: error.message };
  if (error instanceof CodeIntelligenceError || error instanceof EnvironmentError) {
    return { output: error.message, isError: true };
  }
  throw error;
}
