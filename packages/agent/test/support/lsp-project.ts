import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Request } from "@attractor/llm";
import { LocalExecutionEnvironment } from "../../src/environment/local.js";
import { CodeIntelligence, type CodeIntelligenceOptions } from "../../src/lsp/code-intelligence.js";
import { Session } from "../../src/session/session.js";
import { type ScriptedReply, scriptedClient } from "../../src/testing/index.js";
import { applyPatchTool } from "../../src/tools/apply-patch/tool.js";
import { editFileTool } from "../../src/tools/edit-file.js";
import { readFileTool } from "../../src/tools/read-file.js";
import { writeFileTool } from "../../src/tools/write-file.js";
import type { ProviderProfile } from "../../src/types/profile.js";
import { testProfile } from "./fixtures.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository's node_modules/.bin, where the language servers installed for tests live. */
export const SERVERS_BIN = path.resolve(here, "../../../../node_modules/.bin");

/** What one tool call through the session gave: the full output and what the model was sent. */
export interface CallResult {
  readonly output: string;
  readonly isError: boolean;
  readonly sentToModel: string;
}

export interface LspProject {
  readonly dir: string;
  readonly env: LocalExecutionEnvironment;
  readonly intelligence: CodeIntelligence;
  readonly session: Session;
  readonly profile: ProviderProfile;
  readonly requests: readonly Request[];
  /** Whether install() registered the tools. */
  readonly installed: boolean;
  /** Has the scripted model call one tool, then answer; resolves with the call's result. */
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/**
 * A copy of a fixture project in a temp dir with a Session over it: file tools plus the
 * code-intelligence tools (when a server is available), diagnostics after edits, and a scripted
 * model driven by call(). `withServers: false` leaves the test servers off PATH.
 */
export async function openLspProject(
  fixture: "typescript" | "python",
  options: { withServers?: boolean; intelligence?: Partial<CodeIntelligenceOptions> } = {},
): Promise<LspProject> {
  const dir = await mkdtemp(path.join(tmpdir(), `attractor-lsp-${fixture}-`));
  await cp(path.join(here, "..", "fixtures", "lsp", fixture), dir, { recursive: true });
  const searchPath =
    options.withServers === false ? "/usr/bin:/bin" : `${SERVERS_BIN}:${process.env.PATH ?? ""}`;
  const env = new LocalExecutionEnvironment({
    workingDirectory: dir,
    baseEnv: { ...process.env, PATH: searchPath },
  });
  const intelligence = new CodeIntelligence({
    environment: env,
    diagnosticsWaitMs: 15_000,
    ...options.intelligence,
  });
  const profile = testProfile([readFileTool(), writeFileTool(), editFileTool(), applyPatchTool()]);
  const installed = await intelligence.install(profile.toolRegistry);
  const queue: ScriptedReply[] = [];
  const client = scriptedClient(() => queue.shift() ?? { text: "done" });
  const session = new Session({
    profile,
    environment: env,
    client,
    config: { afterToolCall: intelligence.afterToolCall() },
  });
  intelligence.closeWith(session);
  return {
    dir,
    env,
    intelligence,
    session,
    profile,
    requests: client.requests,
    installed,
    async call(name, args) {
      queue.push({ toolCalls: [{ name, args }] }, { text: "done" });
      let result: { output: string; isError: boolean } | undefined;
      const off = session.subscribe((e) => {
        if (e.kind === "tool_call_end") result = { output: e.data.output, isError: e.data.isError };
      });
      await session.submit(`use ${name}`);
      off();
      if (!result) throw new Error(`${name} did not run`);
      const last = client.requests[client.requests.length - 1]!;
      const toolMessage = [...last.messages].reverse().find((m) => m.role === "tool");
      const part = toolMessage?.content[0] as { toolResult?: { content: string } } | undefined;
      return { ...result, sentToModel: part?.toolResult?.content ?? "" };
    },
    async close() {
      await session.close();
      await intelligence.shutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
