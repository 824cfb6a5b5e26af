import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import {
  type AfterToolCallHook,
  CODE_INTELLIGENCE_TOOL_NAMES,
  type CodeIntelligence,
  ContainerExecutionEnvironment,
  type ContainerTarget,
  createAskUserTool,
  createNestedDocs,
  createSkillTool,
  createTodoTool,
  createWebFetchTool,
  type ExecutionEnvironment,
  fileToolCache,
  loadSkills,
  loadSubagentTypes,
  McpManager,
  type ModelClient,
  modelPageAnswerer,
  notebookEditTool,
  type ProviderProfile,
  probeBubblewrap,
  type RegisteredTool,
  type SandboxedExecutionEnvironment,
  type SandboxMode,
  Session,
  type SessionConfig,
  type SessionEvent,
  type SessionInput,
  type Skill,
  type StartProcessOptions,
  type SubagentType,
  sampleWithModel,
  type TodoTool,
  type Turn,
} from "@attractor/agent";
import { discoverProjectDocs, filterEnv } from "@attractor/agent/internals";
import { getModelInfo, preloadProvider, type ReasoningEffort, streamWithRetry } from "@attractor/llm";
import {
  type CheckpointManager,
  createCheckpointManager,
  unavailableCheckpoints,
} from "../checkpoints/index.js";
import {
  attractorHome,
  claudeUserDir,
  formatIssue,
  type HookSource,
  loadSettings,
  PROJECT_SETTINGS_FILES,
  PROJECT_TRUST_FILES,
  type ProjectTrustCheck,
  type ResolvedSettings,
  readProjectTrust,
  recordProjectTrust,
} from "../config/index.js";
import {
  type CustomCommand,
  definitionFolders,
  expandCommandBody,
  loadCustomCommands,
} from "../customization/index.js";
import {
  type CommandHooks,
  confinedLauncher,
  createCommandHooks,
  type HookFunctionGroup,
  projectHooksGate,
  trustedHookSources,
} from "../hooks/index.js";
import { mcpAuthOptions } from "../mcp/auth.js";
import { elicitationHandler, samplingHandler } from "../mcp/client-requests.js";
import type { McpRunOptions } from "../mcp/run-options.js";
import {
  bashParserReady,
  callKind,
  callPaths,
  createPermissionPolicy,
  isPlainLine,
  loadBashParser,
  NON_PUBLIC_ADDRESS_ARGUMENT,
  type PermissionAnswer,
  type PermissionMode,
  type PermissionPolicy,
  type PermissionRequest,
  rulesForUnknownTools,
} from "../permissions/index.js";
import {
  createSessionStore,
  type SessionStore,
  type SessionSummary,
  type SessionWriter,
  secretValuesFromEnv,
  type Transcript,
} from "../store/index.js";
import { codeIntelligenceFromSettings } from "./code-intelligence.js";
import { allowedSecrets, createCommandEnvironment, sandboxStartupNotice } from "./command-environment.js";
import { contextShare, createCostTracker } from "./cost.js";
import { ConfigurationError, NoProviderError, RewindError } from "./errors.js";
import { createHistoryRecorder, type EntryRef, type HistoryRecorder } from "./history-recorder.js";
import { createModelClient, modelRetryPolicy, requestRetries } from "./model-client.js";
import { createProfile, type ToolMode } from "./profile.js";
import { type ModelChoice, resolveModelChoice } from "./provider-choice.js";
import { planRewindTargets } from "./rewind-targets.js";
import { todosFromHistory } from "./stored-history.js";
import { loadSession, readStoredSession, type StoredGrant, selectStoredSession } from "./stored-session.js";
import { createToolGuard, mayChangeFiles } from "./tool-guard.js";
import type {
  ConversationRewind,
  CostSummary,
  RewindTarget,
  Runtime,
  RuntimeMcp,
  RuntimeNotice,
  RuntimeUi,
  RuntimeUpdate,
  TodoItem,
  UserCommandResult,
  UserMessageInput,
} from "./types.js";
import { shellContextBlock, USER_CONTEXT_INSTRUCTIONS } from "./user-context.js";
import { chooseWebSearch } from "./web-search.js";

/** How long a `!command` may run: long enough for a build or a test run. */
const USER_COMMAND_TIMEOUT_MS = 600_000;
/**
 * How long the model's next answer may keep the process idle before the bash parser loads
 * meanwhile: longer than a fast or local model takes, whose runs then load it only for a line that
 * needs it, and shorter than a hosted model's time to its first token, which hides the load.
 */
const PARSER_PRELOAD_IDLE_MS = 250;

type Env = Readonly<Record<string, string | undefined>>;

/** Everything a runtime is made from; flags win over settings files, settings over defaults. */
export interface RuntimeOptions {
  /** The project directory the agent works in. */
  readonly projectDir: string;
  readonly ui: RuntimeUi;
  /** No user is present: what would ask is denied, ask_user is told so. */
  readonly headless?: boolean;
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly mode?: PermissionMode;
  /** The sandbox for shell commands (the --sandbox flag); settings, then workspace-write, otherwise. */
  readonly sandbox?: SandboxMode;
  /** Model responses allowed per submitted message; 0 = unlimited. */
  readonly maxTurns?: number;
  readonly reasoningEffort?: ReasoningEffort;
  readonly toolMode?: ToolMode;
  /** Continue the latest stored session of the project. */
  readonly continueLatest?: boolean;
  /** Resume this stored session. */
  readonly resume?: string;
  /** Environment for keys, base URLs and the shell; process.env by default. */
  readonly env?: Env;
  /** attractor's home; $ATTRACTOR_HOME or ~/.attractor by default. */
  readonly home?: string;
  /** Settings already loaded; read from the home and the project otherwise. */
  readonly settings?: ResolvedSettings;
  /** Sync the transcript to the disk shortly after each entry, off the request path (default true). */
  readonly durable?: boolean;
  /** Allow rules added to the settings' (--allowedTools). */
  readonly allowedTools?: readonly string[];
  /** Deny rules added to the settings' (--disallowedTools). */
  readonly disallowedTools?: readonly string[];
  /** Replaces the agent's own instructions in the system prompt (--system-prompt). */
  readonly systemPrompt?: string;
  /** Added at the end of the system prompt (--append-system-prompt). */
  readonly appendSystemPrompt?: string;
  /** Absolute directories the tools may touch besides the project (--add-dir). */
  readonly additionalDirectories?: readonly string[];
  /** Run the tools on this SSH host, `[user@]host:/path` (--remote, or settings' `remote`). */
  readonly remote?: string;
  /**
   * Run the shell commands in this running container (--container), the project mounted at the
   * same path in it: the container is their sandbox, in place of bubblewrap.
   */
  readonly container?: ContainerTarget;
  /** MCP servers to connect to (in the background) and those configured but left out. */
  readonly mcp?: McpRunOptions;
  /**
   * Trust the project for this run without asking (`--trust-project`): its security-sensitive
   * settings apply and its hooks may run.
   */
  readonly trustProject?: boolean;
  /** Which of Claude Code's settings files to read (`--setting-sources`); all when undefined. */
  readonly claudeSettingSources?: readonly ("user" | "project" | "local")[];
  /**
   * Asks the user whether to trust a project whose settings want sensitive powers; the answer is
   * remembered under the attractor home until the project's settings change. Without it, an
   * untrusted project's sensitive settings are withheld with a warning.
   */
  readonly confirmProjectTrust?: (request: ProjectTrustRequest) => Promise<boolean>;
  /**
   * Wraps the tools' environment (a front end whose files live elsewhere, such as an editor's
   * unsaved buffers); the sandbox, checkpoints and permissions stay as they are.
   */
  readonly wrapEnvironment?: (environment: ExecutionEnvironment) => ExecutionEnvironment;
  /** The model client to use instead of one made for the provider (embedders, tests). */
  readonly client?: RuntimeClient;
  /** Hooks given as functions (an embedding program's, or the Claude Agent SDK's callbacks), trusted as the user's own and run beside the settings' hooks. */
  readonly hookCallbacks?: readonly HookFunctionGroup[];
  /** Subagent types besides those of the agents folders (a program's own; same name wins). */
  readonly subagentTypes?: readonly SubagentType[];
  /** Tools besides the built-in ones (a program's in-process MCP servers). */
  readonly tools?: readonly RegisteredTool[];
  /** Where sessions are stored; the store under the attractor home by default. */
  readonly store?: SessionStore;
}

/** A model client a runtime can use: streams requests; closed with the runtime when it can be. */
export type RuntimeClient = ModelClient & { close?(): Promise<void> };

/** How long Claude Code's apiKeyHelper may take to print the key. */
const API_KEY_HELPER_TIMEOUT_MS = 30_000;

/**
 * Runs the settings' apiKeyHelper (in /bin/sh, in the project) when no Anthropic key is in the
 * environment, and gives its output as ANTHROPIC_API_KEY; a failure is a start-up warning, and
 * the run goes on as without the helper.
 */
async function apiKeyFromHelper(
  helper: string | undefined,
  env: Env,
  projectDir: string,
): Promise<{ variables: Record<string, string>; warning?: string }> {
  if (helper === undefined || env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN) return { variables: {} };
  const { execFile } = await import("node:child_process");
  return new Promise((done) => {
    execFile(
      "/bin/sh",
      ["-c", helper],
      {
        cwd: projectDir,
        env: env as NodeJS.ProcessEnv,
        timeout: API_KEY_HELPER_TIMEOUT_MS,
        maxBuffer: 1 << 16,
      },
      (error, stdout) => {
        const key = String(stdout).trim();
        if (error || key === "")
          done({
            variables: {},
            warning: `apiKeyHelper ${JSON.stringify(helper)} gave no key${error ? `: ${error.message.split("\n")[0]}` : " (it printed nothing)"}`,
          });
        else done({ variables: { ANTHROPIC_API_KEY: key } });
      },
    );
  });
}

/** What a trust prompt shows: the project and the settings that wait for the user's trust. */
export interface ProjectTrustRequest {
  readonly projectDir: string;
  /** Settings (`baseUrl`, `permissions.allow`…) and project hooks waiting for trust. */
  readonly withheld: readonly string[];
  /** The project was decided on before and its settings changed since. */
  readonly changed: boolean;
}

type Listener = (update: RuntimeUpdate) => void;

/**
 * Everything that belongs to one Session, built together by install() and replaced whole when
 * the session changes (new, resumed, cleared, rebuilt, rewound), so no piece of one session's
 * state can outlive it or leak into the next.
 */
interface ActiveSession {
  readonly session: Session;
  readonly writer: SessionWriter;
  readonly rootId: string | null;
  readonly recorder: HistoryRecorder;
  /**
   * Its permission policy: a new or resumed session starts from its own stored grants ("always
   * allow" lasts the session), a session rebuilt from this one keeps it.
   */
  readonly policy: PermissionPolicy;
  /** Stops forwarding the session's events; calling it again does nothing. */
  readonly detach: () => void;
  /** Steering sent to the session and not injected yet, oldest first. */
  steering: readonly string[];
  /** How the session's last cycle ended. */
  lastEnd: string | undefined;
}

/** The parts a session is rebuilt from (on /clear, /resume, after an interrupt). */
interface SessionParts {
  readonly writer: SessionWriter;
  readonly rootId: string | null;
  readonly history: readonly Turn[];
  readonly restored: number;
  /** Where the restored turns are in the transcript, by history index. */
  readonly entries?: readonly (EntryRef | undefined)[];
  /** "Always allow" rules the session had granted. */
  readonly grants: readonly StoredGrant[];
}

/**
 * Builds a runtime: resolves provider and model, loads settings, wires the permission policy,
 * checkpoints and the session store around a Session, and starts a new session or restores a
 * stored one. Throws ConfigurationError or SettingsError for a configuration it cannot run with.
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const givenEnv = options.env ?? process.env;
  const home = options.home ?? attractorHome(givenEnv as NodeJS.ProcessEnv);
  const projectDir = resolve(options.projectDir);
  const info = await stat(projectDir).catch(() => undefined);
  if (!info?.isDirectory())
    throw new ConfigurationError(`The project directory ${projectDir} does not exist.`);
  const loaded = options.settings ?? (await loadProjectSettings(options, home, projectDir));
  // Claude Code's settings `env` is the session's environment: the provider and the tools see it
  // (the variables were set on purpose, so secret-looking names among them pass to commands too).
  const variables = loaded.variables ?? {};
  const helped = await apiKeyFromHelper(loaded.apiKeyHelper, { ...givenEnv, ...variables }, projectDir);
  const env = { ...givenEnv, ...variables, ...helped.variables };
  const settings: ResolvedSettings = {
    ...loaded,
    env: { allow: [...loaded.env.allow, ...Object.keys(variables)] },
    permissions: {
      allow: [...loaded.permissions.allow, ...(options.allowedTools ?? [])],
      ask: loaded.permissions.ask,
      deny: [...loaded.permissions.deny, ...(options.disallowedTools ?? [])],
    },
  };
  const additionalDirectories = [
    ...(loaded.additionalDirectories ?? []).map((d) => resolve(projectDir, d)),
    ...(options.additionalDirectories ?? []),
  ];
  let choice: ModelChoice;
  try {
    choice = resolveModelChoice(
      {
        ...(options.provider !== undefined && { provider: options.provider }),
        ...(options.model !== undefined && { model: options.model }),
        ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      },
      settings,
      env,
      options.client !== undefined,
    );
  } catch (error) {
    // The key a project's apiKeyHelper would give waits for trust: say so where the key is missed.
    const helper = loaded.withheld.find((name) => name.startsWith("apiKeyHelper"));
    if (error instanceof NoProviderError && helper !== undefined)
      throw new ConfigurationError(
        error.message,
        `The project's ${helper} was not run: the project is not trusted (run with --trust-project to trust it for this run).`,
      );
    throw error;
  }
  // The provider's SDK loads while the rest of start-up (stored sessions, checkpoints, the
  // prompt's git snapshot) goes on, rather than when the first request is about to be sent.
  if (options.client === undefined) void preloadProvider(choice.provider);
  // Likewise the sandbox's one-off bubblewrap probe (cached for the process), which the prompt's
  // git snapshot, the first command the session runs, would otherwise wait for.
  const sandboxMode = options.sandbox ?? loaded.sandbox?.mode ?? "workspace-write";
  if (
    process.platform === "linux" &&
    sandboxMode !== "danger-full-access" &&
    (options.remote ?? loaded.remote) === undefined &&
    options.container === undefined
  )
    probeBubblewrap(env.PATH).catch(() => {});
  const store =
    options.store ??
    createSessionStore({
      home,
      // The secrets of the environment the run was given as well as the process's own.
      secrets: secretValuesFromEnv({ ...process.env, ...env }),
      ...(options.durable !== undefined && { durable: options.durable }),
    });
  const stored = await selectStoredSession(store, projectDir, options);
  const remoteSpec = options.remote ?? loaded.remote;
  if (remoteSpec !== undefined && options.container !== undefined)
    throw new ConfigurationError(
      `--container ${options.container.container} and a remote host (${remoteSpec}) cannot be used together: commands run in one place`,
    );
  const remote = remoteSpec !== undefined ? await openRemote(remoteSpec, env) : undefined;
  const checkpoints = remote
    ? unavailableCheckpoints(
        `checkpoints are not taken for a project on a remote host (${remoteSpec}), so there is nothing to undo or restore`,
      )
    : await createCheckpointManager({ projectRoot: projectDir, home });
  const hookSources = settings.hooks ?? [];
  // Project hooks run commands: they wait for the same trust as the project's other settings.
  const gate = projectHooksGate({ sources: hookSources, trustProject: settings.projectTrusted });
  const [commands, agents, skills] = await Promise.all([
    loadCustomCommands(definitionFolders("commands", home, projectDir)),
    loadSubagentTypes(definitionFolders("agents", home, projectDir)),
    loadSkills(definitionFolders("skills", home, projectDir)),
  ]);
  const startupWarnings = [
    ...(helped.warning !== undefined ? [helped.warning] : []),
    ...((settings.unhonoured ?? []).length > 0
      ? [`Claude Code settings read and not honoured: ${settings.unhonoured.join("; ")}`]
      : []),
    ...(settings.warnings ?? []).map((w) => `settings: ${formatIssue(w)} (ignored)`),
    ...(gate.warning !== undefined ? [gate.warning] : []),
    ...[...commands.problems, ...agents.problems, ...skills.problems].map(
      (p) => `${p.file}: ${p.problem} (skipped)`,
    ),
  ];
  const runtime = new AgentRuntime({
    env,
    home,
    ...(options.sandbox !== undefined && { sandbox: options.sandbox }),
    projectDir,
    settings,
    hookSources: trustedHookSources(hookSources, gate),
    startupWarnings,
    commands: commands.commands,
    subagentTypes: [
      ...agents.items.filter((a) => !options.subagentTypes?.some((own) => own.name === a.name)),
      ...(options.subagentTypes ?? []),
    ],
    skills: skills.items,
    choice,
    store,
    checkpoints,
    ui: options.ui,
    headless: options.headless ?? false,
    mode: options.mode ?? settings.mode ?? "normal",
    maxTurns: options.maxTurns ?? settings.maxTurns ?? 0,
    reasoningEffort: options.reasoningEffort ?? settings.reasoningEffort,
    toolMode: options.toolMode ?? settings.toolMode ?? "native",
    additionalDirectories,
    // Only directories given on the command line are writable to sandboxed commands: a project's
    // settings file cannot widen the sandbox.
    sandboxDirectories: options.additionalDirectories ?? [],
    ...(remote !== undefined && { remote }),
    ...(options.container !== undefined && { container: options.container }),
    ...(options.systemPrompt !== undefined && { systemPrompt: options.systemPrompt }),
    ...(options.appendSystemPrompt !== undefined && { appendSystemPrompt: options.appendSystemPrompt }),
    ...(options.mcp !== undefined && { mcp: options.mcp }),
    ...(options.wrapEnvironment !== undefined && { wrapEnvironment: options.wrapEnvironment }),
    ...(options.client !== undefined && { client: options.client }),
    hookCallbacks: options.hookCallbacks ?? [],
    tools: options.tools ?? [],
  });
  // Ignored hooks have the hook gate's own warning.
  const withheld = settings.withheld.filter((name) => name !== "hooks");
  if (withheld.length > 0) runtime.warn(withheldWarning(withheld));
  await runtime.start(stored);
  // A new project's shadow repository is created beside the first model request rather than on
  // the first edit's critical path; after the session started its prompt's git snapshot, whose
  // process the first request waits for, so that one is not started behind this one's fork.
  // Failures surface at that first snapshot.
  checkpoints.prepare().catch(() => {});
  return runtime;
}

/**
 * Loads the settings, deciding on the project's trust once: when its settings want sensitive
 * powers, or when it has other trust files (none besides the settings files today), whose loaders read the decision from
 * `settings.projectTrusted`.
 */
async function loadProjectSettings(
  options: RuntimeOptions,
  home: string,
  projectDir: string,
): Promise<ResolvedSettings> {
  const others: string[] = [];
  for (const file of PROJECT_TRUST_FILES) {
    if (PROJECT_SETTINGS_FILES.includes(file)) continue;
    if (
      await stat(join(projectDir, file)).then(
        () => true,
        () => false,
      )
    )
      others.push(file);
  }
  const check = trustCheck(options, home, projectDir);
  let decision: Promise<boolean> | undefined;
  const decide: ProjectTrustCheck = (withheld) => {
    decision ??= Promise.resolve(check([...withheld, ...others]));
    return decision;
  };
  const settings = await loadSettings({
    home,
    projectDir,
    trust: decide,
    claudeDir: claudeUserDir(options.env ?? process.env),
    ...(options.claudeSettingSources !== undefined && { claudeSources: options.claudeSettingSources }),
  });
  if (decision === undefined && others.length > 0) await decide([]);
  // --trust-project trusts a project that brings no settings too (its language servers, say).
  return { ...settings, projectTrusted: (await decision) ?? options.trustProject === true };
}

/** How createRuntime decides on an untrusted project's sensitive settings. */
function trustCheck(options: RuntimeOptions, home: string, projectDir: string): ProjectTrustCheck {
  return async (withheld) => {
    if (options.trustProject === true) return true;
    const state = await readProjectTrust({ home, projectDir });
    if (state.kind === "trusted") return true;
    if (state.kind !== "unknown" || !options.confirmProjectTrust || options.headless) return false;
    const trusted = await options.confirmProjectTrust({ projectDir, withheld, changed: state.changed });
    // The decision is pinned to the files the user was asked about. A home that cannot be written
    // only means the question comes again next time; the answer holds for this run.
    await recordProjectTrust({
      home,
      projectDir,
      decision: trusted ? "trusted" : "declined",
      fingerprint: state.fingerprint,
    }).catch(() => {});
    return trusted;
  };
}

function withheldWarning(withheld: readonly string[]): string {
  return `the project's settings file sets ${withheld.join(", ")}, ignored because this project is not trusted; review the file, then run with --trust-project to apply them`;
}

interface RuntimeParts {
  readonly env: Env;
  readonly home: string;
  readonly sandbox?: SandboxMode;
  readonly projectDir: string;
  readonly settings: ResolvedSettings;
  /** Hook sources that passed the trust gate. */
  readonly hookSources: readonly HookSource[];
  readonly startupWarnings: readonly string[];
  readonly commands: readonly CustomCommand[];
  readonly subagentTypes: readonly SubagentType[];
  readonly skills: readonly Skill[];
  readonly choice: ModelChoice;
  readonly store: SessionStore;
  readonly checkpoints: CheckpointManager;
  readonly ui: RuntimeUi;
  readonly headless: boolean;
  readonly mode: PermissionMode;
  readonly maxTurns: number;
  readonly reasoningEffort: ReasoningEffort | undefined;
  readonly toolMode: ToolMode;
  readonly additionalDirectories: readonly string[];
  readonly sandboxDirectories: readonly string[];
  /** The tools' environment on a remote host, initialized; the local project otherwise. */
  readonly remote?: ExecutionEnvironment;
  /** The container the shell commands run in, in place of the local sandbox. */
  readonly container?: ContainerTarget;
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  readonly mcp?: McpRunOptions;
  readonly wrapEnvironment?: (environment: ExecutionEnvironment) => ExecutionEnvironment;
  readonly client?: RuntimeClient;
  readonly hookCallbacks: readonly HookFunctionGroup[];
  readonly tools: readonly RegisteredTool[];
}

/** The Runtime: one current Session plus everything wired around it. */
class AgentRuntime implements Runtime {
  readonly provider: string;
  readonly projectDir: string;
  readonly checkpoints: CheckpointManager;
  readonly store: SessionStore;
  private readonly parts: RuntimeParts;
  private readonly client: RuntimeClient;
  private readonly environment: ExecutionEnvironment;
  /** Language servers, when settings allow them; started only when a tool needs one. */
  private readonly codeIntelligence: CodeIntelligence | undefined;
  /** Settles once the code-intelligence tools are registered (when a server is available). */
  private codeIntelligenceReady: Promise<unknown> = Promise.resolve();
  /** The local environment's sandbox; none for a remote host (its commands run there as they are). */
  private readonly sandboxed: SandboxedExecutionEnvironment | undefined;
  private readonly sandboxRequired: boolean;
  private sandboxWarned = false;
  private readonly todoTool: TodoTool;
  private readonly profile: ProviderProfile;
  private readonly mcpManager: McpManager | undefined;
  /** What the first model request waits for: the servers (up to the wait), or only the cache. */
  private readonly mcpReady: (signal?: AbortSignal) => Promise<void> = async () => {};
  readonly mcp: RuntimeMcp | undefined;
  private readonly listeners = new Set<Listener>();
  /** Notices raised before anyone listened (start-up warnings), replayed to the first listener. */
  private readonly early: RuntimeNotice[] = [];
  private readonly spending = createCostTracker();
  private readonly userMessages = new Map<string, string>();
  /** Output of `!command`s run since the last message, sent at the start of the next one. */
  private readonly userContext: string[] = [];
  /** submit() calls not settled yet: a turn is running while above zero. */
  private running = 0;
  /** The current session and its state; undefined only while the constructor runs. */
  private active!: ActiveSession;
  private modelValue: string;
  private todoList: readonly TodoItem[] = [];
  private lastContext: number | undefined;
  private snapshotWarned = false;
  private closed = false;
  private parserPreload: NodeJS.Timeout | undefined;
  private readonly hooks: CommandHooks;
  /** What the SessionEnd hook is told when the current session closes. */
  private endReason = "other";
  /** What the next session's SessionStart hook is told. */
  private nextStart: "startup" | "resume" | "clear" = "startup";

  constructor(parts: RuntimeParts) {
    this.parts = parts;
    this.provider = parts.choice.provider;
    this.modelValue = parts.choice.model;
    this.projectDir = parts.projectDir;
    this.checkpoints = parts.checkpoints;
    this.store = parts.store;
    this.client = parts.client ?? createModelClient(parts.choice, parts.env);
    const askEscape = parts.ui.askSandboxEscape?.bind(parts.ui);
    // A remote host's commands run there as they are: the sandbox is the local machine's.
    const container =
      parts.container === undefined
        ? undefined
        : new ContainerExecutionEnvironment({
            workingDirectory: parts.projectDir,
            projectDirs: parts.sandboxDirectories,
            envPolicy: { allowSecrets: allowedSecrets(parts.settings.env.allow, parts.env) },
            baseEnv: parts.env,
            target: parts.container,
          });
    // Commands that run elsewhere (a remote host, a container) have their own isolation.
    const elsewhere = parts.remote ?? container;
    const commands = elsewhere
      ? undefined
      : createCommandEnvironment({
          projectDir: parts.projectDir,
          env: parts.env,
          settings: parts.settings,
          home: parts.home,
          projectDirs: parts.sandboxDirectories,
          ...(parts.sandbox !== undefined && { sandbox: parts.sandbox }),
          headless: parts.headless,
          warn: (message) => this.warnSandbox(message),
          // The same judgement that spares a command its checkpoint (see tool-guard) makes it
          // run with the project read-only.
          // The model's commands are judged (and the parser loaded) by the permission check before
          // they run; the runtime's own commands run before that get the default policy, unless
          // they are plain words (judged without the parser).
          readOnlyFor: async (command) =>
            (bashParserReady() || isPlainLine(command)) &&
            !(await mayChangeFiles(
              { callId: "", toolName: "shell", arguments: { command } },
              this.profile.toolRegistry,
              this.active.policy,
            )),
          ...(!parts.headless && askEscape !== undefined && { askEscape }),
        });
    this.sandboxed = commands?.environment;
    this.sandboxRequired = commands?.required ?? false;
    const environment = parts.remote ?? container ?? (commands?.environment as ExecutionEnvironment);
    this.environment = parts.wrapEnvironment?.(environment) ?? environment;
    // Language servers run where the files are: an environment that cannot start them has none.
    this.codeIntelligence = codeIntelligenceFromSettings(
      this.environment,
      parts.settings.lsp,
      parts.settings.projectTrusted,
    );
    this.todoTool = createTodoTool({
      onChange: (todos) => {
        this.todoList = todos;
        this.notify({ kind: "todos_changed", todos });
      },
    });
    const askUser = createAskUserTool({
      ask: parts.headless
        ? async () => undefined
        : (question) => {
            void this.active.session.notify(`attractor has a question for you: ${question.question}`);
            return parts.ui.askUser(question);
          },
    });
    // Skill folders are on this machine even when the tools work on a remote host.
    const skillTools =
      parts.skills.length > 0
        ? [createSkillTool(() => parts.skills, { readFile: (path) => readFile(path, "utf8"), listFiles })]
        : [];
    const webFetch = createWebFetchTool({
      // The page is read by the session's current model, in a request of its own.
      answer: (question) =>
        modelPageAnswerer(this.client, { model: this.modelValue, provider: this.profile.provider })(question),
      // An address on this machine or its network is judged by the policy as a call of its own.
      allowNonPublic: async (target) =>
        (
          await this.active.policy.check({
            callId: "",
            toolName: "web_fetch",
            arguments: { url: target.url, [NON_PUBLIC_ADDRESS_ARGUMENT]: target.address },
          })
        ).behavior === "allow",
    });
    // Searches are calls of their own, which the permission policy judges like any other.
    const webSearch = chooseWebSearch({
      settings: parts.settings.webSearch,
      provider: parts.choice.provider,
      client: this.client,
      model: () => this.modelValue,
      // The search's side request is spending of this run, as the conversation's requests are.
      onUsage: (usage, model) => this.spending.record(model, usage),
    });
    this.profile = createProfile(
      parts.choice,
      [
        this.todoTool,
        askUser,
        webFetch,
        ...(webSearch.kind === "offered" ? [webSearch.tool] : []),
        notebookEditTool(),
        ...skillTools,
        ...parts.tools,
      ],
      parts.toolMode,
    );
    for (const message of parts.startupWarnings) this.notify({ kind: "warning", message });
    if (webSearch.kind === "unavailable") this.notify({ kind: "warning", message: webSearch.notice });
    this.hooks = createCommandHooks(
      parts.hookSources,
      {
        projectDir: parts.projectDir,
        // Hooks see what the shell tool sees: secret-looking variables only when settings allow them.
        env: filterEnv(parts.env, { allowSecrets: allowedSecrets(parts.settings.env.allow, parts.env) }),
        sessionId: () => this.active?.session.id ?? "",
        endReason: () => this.endReason,
        transcriptPath: () => this.active?.writer.path,
        permissionMode: () => this.active?.policy.mode ?? parts.mode,
        notify: (tone, text) =>
          this.notify(tone === "info" ? { kind: "hook_output", text } : { kind: "warning", message: text }),
        // A prompt hook is one question to the session's model, outside the conversation.
        evaluatePrompt: async (prompt, signal) =>
          (
            await sampleWithModel(
              this.client,
              {
                server: "hooks",
                messages: [{ role: "user", content: { type: "text", text: prompt } }],
                maxTokens: 1024,
              },
              { model: this.modelValue, provider: this.profile.provider, signal },
            )
          ).text,
        confine: () =>
          confinedLauncher({
            projectDir: parts.projectDir,
            hidden: [parts.env.HOME ?? homedir(), parts.home].filter((dir) => existsSync(dir)),
            path: parts.env.PATH,
          }),
      },
      parts.hookCallbacks,
    );
    const mcp = parts.mcp;
    if (mcp && (Object.keys(mcp.servers).length > 0 || (mcp.skipped?.length ?? 0) > 0)) {
      for (const s of mcp.skipped ?? [])
        this.notify({
          kind: "warning",
          message: `MCP server "${s.name}" (${s.origin}) is not used: ${s.reason}`,
        });
      // The servers connect in the background (see RuntimeMcp.start); the first model request
      // waits for them briefly.
      const manager = new McpManager(mcp.servers, {
        cwd: parts.projectDir,
        toolCache: fileToolCache(join(parts.home, "mcp", "tool-cache")),
        roots: [parts.projectDir, ...parts.additionalDirectories],
        ...mcpAuthOptions(parts.home),
        // A sandbox the user chose (--sandbox, sandbox.mode) holds the stdio servers too, with
        // the project writable as for commands; the default, best-effort sandbox does not (its
        // lack of network would break servers that were working).
        ...(this.sandboxRequired &&
          this.sandboxed !== undefined && {
            startProcess: (command: string, args: readonly string[], options: StartProcessOptions) =>
              (this.sandboxed as SandboxedExecutionEnvironment).startSandboxedProcess(command, args, options),
          }),
        onSampling: samplingHandler({
          setting: mcp.sampling ?? "ask",
          headless: parts.headless,
          ask: (question) => parts.ui.askUser(question),
          model: () => this.modelValue,
          complete: (request, signal) =>
            sampleWithModel(this.client, request, {
              model: this.modelValue,
              provider: this.profile.provider,
              signal,
            }),
        }),
        onElicitation: elicitationHandler({
          headless: parts.headless,
          ask: (question) => parts.ui.askUser(question),
        }),
        ...(mcp.startupWaitMs !== undefined && { startupWaitMs: mcp.startupWaitMs }),
        ...(mcp.connectTimeoutMs !== undefined && { connectTimeoutMs: mcp.connectTimeoutMs }),
        ...(mcp.toolTimeoutMs !== undefined && { toolTimeoutMs: mcp.toolTimeoutMs }),
      });
      manager.subscribe((event) => {
        if (event.kind === "server_status" && event.status === "failed" && event.error !== undefined)
          this.notify({ kind: "warning", message: event.error });
      });
      manager.attach(this.profile.toolRegistry);
      this.mcpManager = manager;
      // With no wait nothing holds the first request, and the servers start once the model has
      // begun to answer (see install) rather than while the request is being sent.
      this.mcpReady =
        mcp.startupWaitMs === 0
          ? async () => {
              await manager.prepare();
            }
          : manager.waitForStartup;
      // Headless, servers whose tools the cache knows start once the first request is on its way
      // (see install), so their start-up does not compete with the run's own; the others start
      // now, since the first request waits for them (unless the wait is 0).
      if (parts.headless)
        void manager.prepare().then((known) => {
          if (!known && mcp.startupWaitMs !== 0) manager.start();
        });
      this.mcp = {
        start: () => manager.start(),
        ready: () => this.mcpReady(),
        servers: () => manager.servers(),
        skipped: mcp.skipped ?? [],
        prompts: () => manager.prompts(),
        getPrompt: (name, args) => manager.getPrompt(name, args),
        reconnect: (server) => manager.reconnect(server),
      };
    }
  }

  get session(): Session {
    return this.active.session;
  }

  get model(): string {
    return this.modelValue;
  }

  get mode(): PermissionMode {
    return this.active.policy.mode;
  }

  get todos(): readonly TodoItem[] {
    return this.todoList;
  }

  get customCommands(): readonly CustomCommand[] {
    return this.parts.commands;
  }

  get subagentTypes(): readonly SubagentType[] {
    return this.parts.subagentTypes;
  }

  get skills(): readonly Skill[] {
    return this.parts.skills;
  }

  async runCustomCommand(name: string, args: string): Promise<void> {
    const command = this.parts.commands.find((c) => c.name === name);
    if (!command) throw new ConfigurationError(`Unknown command /${name}.`);
    const prompt = await expandCommandBody(name, command.body, args, {
      // Where the tools work: the project, or the remote host's copy of it.
      readFile: (path) => this.environment.readFile(path),
      runShell: (line) => this.commandShell(line, command.allowedTools),
    });
    const previous = this.modelValue;
    let switched = false;
    if (command.model !== undefined && command.model !== previous && !MODEL_ALIASES.has(command.model)) {
      try {
        this.setModel(command.model);
        switched = true;
      } catch (error) {
        this.notify({
          kind: "warning",
          message: `/${name} asks for the model ${command.model}: ${error instanceof Error ? error.message : String(error)} Using ${previous}.`,
        });
      }
    }
    try {
      await this.submit(prompt);
    } finally {
      if (switched && this.modelValue === command.model) this.setModel(previous);
    }
  }

  async instructionFiles(): Promise<readonly string[]> {
    const found = await discoverProjectDocs(this.environment, {
      providerFiles: this.profile.projectDocFiles,
      userFiles: this.userInstructionFiles,
      ...(this.parts.env.HOME !== undefined && { homeDir: this.parts.env.HOME }),
    });
    return [...new Set([this.userInstructionsFile, ...found.docs.map((d) => d.path)])];
  }

  /** The user-level instructions file: `<home>/AGENTS.md`. */
  private get userInstructionsFile(): string {
    return join(this.parts.home, "AGENTS.md");
  }

  /** The user-level instructions files: attractor's, then Claude Code's (~/.claude/CLAUDE.md). */
  private get userInstructionFiles(): string[] {
    return [this.userInstructionsFile, join(claudeUserDir(this.parts.env), "CLAUDE.md")];
  }

  /**
   * Runs a custom command's !`line` after the permission policy allows it (the command's
   * allowed-tools count as allow rules for it); rejects with the policy's message when refused.
   */
  private async commandShell(line: string, allowedTools: readonly string[]): Promise<string> {
    const rules = this.parts.settings.permissions;
    const policy = createPermissionPolicy({
      mode: this.active.policy.mode,
      rules: { ...rules, allow: [...rules.allow, ...this.active.policy.grants(), ...allowedTools] },
      projectRoot: this.projectDir,
      headless: this.noOneAnswers,
      ask: (request) => this.askPermission(request),
      toolTraits: (name) => this.profile.toolRegistry.get(name),
    });
    const decision = await policy.check({
      callId: "custom-command",
      toolName: "shell",
      arguments: { command: line },
    });
    if (decision.behavior === "deny") throw new Error(decision.message);
    const result = await this.environment.execCommand(line, { timeoutMs: 120_000 });
    if (result.timedOut) throw new Error("it timed out after 120 s");
    return result.output;
  }

  /** Opens the transcript (new or stored) and builds the first session. */
  async start(stored: Transcript | undefined): Promise<void> {
    // Checking for language servers reads a few files; it runs beside opening the transcript
    // and is waited for only before the first model request.
    this.codeIntelligenceReady =
      this.codeIntelligence?.install(this.profile.toolRegistry).catch(() => false) ?? Promise.resolve();
    this.nextStart = stored ? "resume" : "startup";
    // The sandbox is probed beside start-up, not on its path: its answer only adds a notice.
    if (this.sandboxed)
      sandboxStartupNotice(this.sandboxed, this.sandboxRequired).then(
        (message) => message !== undefined && this.warnSandbox(message),
        () => {},
      );
    const { allow, ask, deny } = this.parts.settings.permissions;
    const registry = this.profile.toolRegistry;
    // Code-intelligence tools are registered once a server is found, which may be later than this.
    const codeTools: readonly string[] = this.codeIntelligence ? CODE_INTELLIGENCE_TOOL_NAMES : [];
    for (const rule of rulesForUnknownTools(
      [...allow, ...ask, ...deny],
      (name) => registry.get(name) !== undefined || codeTools.includes(name),
    ))
      this.notify({
        kind: "warning",
        message: `the permission rule ${rule} names a tool this agent does not have; it never matches (tools: ${registry.names().join(", ")})`,
      });
    const parts = stored ? await this.openStored(stored) : await this.openNew();
    if (stored) this.restoreFigures(parts.history);
    this.install(parts);
  }

  /**
   * A stored conversation's context share, as the status line showed it. (Its tokens and cost
   * stay out of this run's spending: a headless result reports what the run itself spent.)
   */
  private restoreFigures(history: readonly Turn[]): void {
    const last = history.findLast((t) => t.kind === "assistant");
    if (last?.kind === "assistant")
      this.lastContext = contextShare(
        last.usage,
        (this.modelValue === this.profile.model ? this.profile : this.profile.withModel(this.modelValue))
          .contextWindowSize,
      );
  }

  /** The sandbox notice is given once, whether start-up or the first command finds it missing. */
  private warnSandbox(message: string): void {
    if (this.sandboxWarned) return;
    this.sandboxWarned = true;
    this.notify({ kind: "warning", message });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1 && this.early.length > 0) {
      for (const notice of this.early.splice(0)) safeCall(listener, { source: "runtime", notice });
    }
    return () => this.listeners.delete(listener);
  }

  async submit(input: UserMessageInput): Promise<void> {
    if (this.closed) throw new Error("the runtime is closed");
    const { text, images } = typeof input === "string" ? { text: input, images: undefined } : input;
    this.running++;
    try {
      await this.codeIntelligenceReady;
      const first = this.userContext.splice(0).join("") + text;
      let next: SessionInput | undefined = images && images.length > 0 ? { text: first, images } : first;
      while (next !== undefined) {
        // A session closed by a fatal error (authentication, context overflow) is rebuilt from its
        // history, so the user can fix the cause and go on in the same transcript.
        if (this.active.session.state === "closed") await this.rebuild();
        const session = this.active.session;
        const { maxTurns } = this.parts;
        // A limit the user gave (--max-turns, settings) replaces the library's default ceiling
        // on tool rounds per input, so it is the one that ends a long task.
        session.updateConfig({
          maxTurns: maxTurns > 0 ? session.turnCount + maxTurns : 0,
          ...(maxTurns > 0 && { maxToolRoundsPerInput: maxTurns }),
        });
        await session.submit(next);
        await this.active.recorder.flush();
        next = this.lateSteering(session);
      }
    } finally {
      this.running--;
    }
  }

  /**
   * Loads the bash parser while the process waits on the model, once a task is using tools: a
   * later first shell call would otherwise wait for it, and a run that uses no tool never loads
   * it. Armed when a tool call ends and disarmed by the model's next answer, it fires only when
   * that answer is slow to come (as hosted models' are), so the load never takes the CPU from a
   * round that is ready to go on, and a run against a model that answers at once pays for it only
   * when a line needs the grammar. A failure is reported by the first shell call's own check.
   */
  private armShellParserPreload(): void {
    this.disarmShellParserPreload();
    if (bashParserReady() || this.profile.toolRegistry.get("shell") === undefined) return;
    this.parserPreload = setTimeout(() => {
      this.parserPreload = undefined;
      loadBashParser().catch(() => {});
    }, PARSER_PRELOAD_IDLE_MS).unref();
  }

  private disarmShellParserPreload(): void {
    if (this.parserPreload === undefined) return;
    clearTimeout(this.parserPreload);
    this.parserPreload = undefined;
  }

  async runUserCommand(command: string, onOutput?: (chunk: string) => void): Promise<UserCommandResult> {
    if (this.closed) throw new Error("the runtime is closed");
    const decision = await this.active.policy.beforeToolCall({
      callId: `user-command-${Date.now()}`,
      toolName: "shell",
      arguments: { command },
    });
    if (decision !== undefined && decision.action === "deny")
      return { kind: "denied", message: decision.message };
    const result = await this.environment.execCommand(command, {
      timeoutMs: USER_COMMAND_TIMEOUT_MS,
      ...(onOutput !== undefined && { onOutput: (chunk: string) => onOutput(chunk) }),
    });
    const status = result.timedOut
      ? `timed out after ${USER_COMMAND_TIMEOUT_MS / 1000} s`
      : `exit ${result.exitCode ?? result.signal ?? "?"}`;
    this.userContext.push(shellContextBlock(command, result.output, status));
    return { kind: "ran", output: result.output, exitCode: result.exitCode, timedOut: result.timedOut };
  }

  steer(text: string): void {
    if (this.closed) throw new Error("the runtime is closed");
    if (this.running === 0) {
      this.submit(text).catch((error: unknown) =>
        this.notify({
          kind: "warning",
          message: `Could not send: ${error instanceof Error ? error.message : String(error)}`,
        }),
      );
      return;
    }
    if (this.active.session.state === "closed") {
      // The turn failed for good; the message goes back to the user rather than nowhere.
      this.notify({ kind: "steering_dropped", messages: [text] });
      return;
    }
    this.active.session.steer(text);
    this.setSteering([...this.active.steering, text]);
  }

  get pendingSteering(): readonly string[] {
    return this.active.steering;
  }

  async interrupt(): Promise<void> {
    await this.active.session.interrupt();
    await this.active.recorder.flush();
  }

  setMode(mode: PermissionMode): void {
    this.active.policy.setMode(mode);
    applyReadOnlyMode(this.active.session, mode);
    this.notify({ kind: "mode_changed", mode });
  }

  setModel(model: string): void {
    const owner = getModelInfo(model)?.provider;
    if (owner !== undefined && owner !== this.provider) {
      throw new ConfigurationError(
        `The model "${model}" belongs to ${owner}; this session talks to ${this.provider}. Start attractor with --provider ${owner} to use it.`,
      );
    }
    this.active.session.setModel(model);
    this.modelValue = model;
    this.notify({ kind: "model_changed", model });
  }

  cost(): CostSummary {
    return this.spending.summary();
  }

  contextPercent(): number | undefined {
    return this.lastContext;
  }

  async undo(): Promise<
    { readonly files: readonly string[]; readonly notices?: readonly string[] } | undefined
  > {
    const result = await this.checkpoints.undo();
    if (!result) return undefined;
    const files = result.files.map((f) => f.path);
    this.notify({ kind: "checkpoint_restored", files });
    return { files, ...(result.notices !== undefined && { notices: result.notices }) };
  }

  rewindPoints() {
    return this.checkpoints.list();
  }

  previewRestore(checkpointId: string) {
    return this.checkpoints.diff(checkpointId);
  }

  async restore(checkpointId: string): Promise<{ readonly files: readonly string[] }> {
    const result = await this.checkpoints.restore(checkpointId);
    const files = result.files.map((f) => f.path);
    this.notify({ kind: "checkpoint_restored", files });
    return { files };
  }

  async rewindTargets(): Promise<readonly RewindTarget[]> {
    await this.active.recorder.flush();
    const groups = await this.checkpoints.list();
    return planRewindTargets(this.active.session.history, this.active.recorder.entries(), groups);
  }

  async rewindConversation(
    turnIndex: number,
    options: { readonly restoreCheckpoint?: string } = {},
  ): Promise<ConversationRewind> {
    if (this.closed) throw new Error("the runtime is closed");
    if (this.running > 0 || this.active.session.state === "processing")
      throw new RewindError("The conversation cannot be rewound while a turn is running.", turnIndex);
    const target = this.active.session.history[turnIndex];
    if (target?.kind !== "user")
      throw new RewindError(`Turn ${turnIndex} of the conversation is not a user message.`, turnIndex);
    let files: readonly string[] = [];
    if (options.restoreCheckpoint !== undefined) {
      // Files first: when the restore fails, the conversation is left as it was.
      const checkpoint = (await this.checkpoints.checkpoints()).find(
        (c) => c.id === options.restoreCheckpoint,
      );
      await this.checkpoints.snapshot({
        label: `before rewinding to "${checkpoint?.label ?? options.restoreCheckpoint}"`,
      });
      ({ files } = await this.restore(options.restoreCheckpoint));
    }
    await this.active.recorder.flush();
    const kept = this.active.session.history.slice(0, turnIndex);
    const entries = this.active.recorder.entries().slice(0, turnIndex);
    const at = this.active.recorder.entries()[turnIndex];
    // The transcript branches where the message hung: a marker entry there makes the kept turns
    // the current branch (readers follow the branch of the last entry), and what follows hangs
    // from the marker. Without the message's place, the kept turns are written again after a
    // marker on the root.
    await this.active.writer.append(
      "rewind",
      { keptTurns: turnIndex, ...(at && { toEntry: at.id }) },
      { parentId: at ? at.parentId : this.active.rootId },
    );
    this.continueFrom(kept, at ? entries : []);
    await this.active.recorder.flush();
    this.todoTool.set(todosFromHistory(kept));
    const lastAnswer = kept.findLast((t) => t.kind === "assistant");
    this.lastContext =
      lastAnswer?.kind === "assistant"
        ? contextShare(lastAnswer.usage, this.active.session.profile.contextWindowSize)
        : undefined;
    this.notify({ kind: "conversation_rewound", text: target.content, keptTurns: turnIndex });
    return { text: target.content, files };
  }

  /** The text of a user message by its transcript entry id (checkpoint groups carry that id). */
  userMessageText(userMessageId: string): string | undefined {
    return this.userMessages.get(userMessageId);
  }

  async compact(focus?: string): Promise<void> {
    await this.active.session.compact(focus);
    await this.active.recorder.flush();
  }

  async clear(): Promise<void> {
    this.endReason = "clear";
    await this.retire();
    this.endReason = "other";
    this.todoTool.set([]);
    this.nextStart = "clear";
    // The new conversation has no context in use until its first request measures it.
    this.lastContext = undefined;
    this.install(await this.openNew());
  }

  listSessions(): Promise<readonly SessionSummary[]> {
    return this.store.list(this.projectDir);
  }

  async resume(sessionId: string): Promise<void> {
    const transcript = await loadSession(this.store, this.projectDir, sessionId);
    await this.retire();
    this.nextStart = "resume";
    const parts = await this.openStored(transcript);
    this.restoreFigures(parts.history);
    this.install(parts);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.disarmShellParserPreload();
    // The user leaving the interactive UI is Claude Code's "prompt_input_exit".
    this.endReason = this.parts.headless ? "other" : "prompt_input_exit";
    // Checkpoints still to be written (git, in a process of its own) are written meanwhile; the
    // second flush below catches a change recorded while the session stopped.
    const checkpointsWritten = this.checkpoints.flush();
    await this.active.session.close();
    await this.active.recorder.flush();
    this.active.detach();
    await this.active.writer.close();
    // The shadow repository may still be being created in the background: no git left running.
    await Promise.allSettled([
      this.client.close?.(),
      this.codeIntelligence?.shutdown(),
      this.environment.cleanup(),
      this.checkpoints.prepare(),
      checkpointsWritten,
      this.checkpoints.flush(),
      this.mcpManager?.close(),
    ]);
  }

  // ---- wiring ----

  /** Nobody answers permission questions: headless, unless a program answers them (the SDK's canUseTool). */
  private get noOneAnswers(): boolean {
    return this.parts.headless && this.parts.ui.answersPermissions !== true;
  }

  private async askPermission(request: PermissionRequest): Promise<PermissionAnswer> {
    void this.active.session.notify(`attractor needs your permission to use ${request.call.toolName}`);
    const answer = await this.parts.ui.askPermission(request);
    if (answer === "allow_always" && request.canAllowAlways && request.alwaysRules.length > 0) {
      // "Always allow" sticks to the session: stored, and granted again on --resume.
      this.active.writer
        .append("permission_grant", { rules: request.alwaysRules, tier: request.tier ?? "none" })
        .catch(() => {});
    }
    return answer;
  }

  private async openNew(): Promise<SessionParts> {
    const writer = await this.store.create(this.projectDir, {
      provider: this.provider,
      model: this.modelValue,
    });
    return { writer, rootId: writer.lastId, history: [], restored: 0, grants: [] };
  }

  private async openStored(transcript: Transcript): Promise<SessionParts> {
    const stored = readStoredSession(transcript);
    for (const message of stored.warnings) this.notify({ kind: "warning", message });
    for (const [id, text] of stored.userMessages) this.userMessages.set(id, text);
    const writer = await this.store.openForAppend(stored.sessionId, this.projectDir);
    this.todoTool.set(todosFromHistory(stored.turns));
    // Turns repaired at the end (interrupted tool calls) are written by the recorder's first sync.
    return {
      writer,
      rootId: stored.rootId,
      history: stored.turns,
      restored: stored.written,
      entries: stored.entries,
      grants: stored.grants,
    };
  }

  /** A permission policy for a new session: the current mode, no grants but the stored ones. */
  private createPolicy(mode: PermissionMode, grants: readonly StoredGrant[]): PermissionPolicy {
    const policy = createPermissionPolicy({
      mode,
      rules: this.parts.settings.permissions,
      projectRoot: this.parts.remote?.workingDirectory() ?? this.projectDir,
      additionalDirectories: this.parts.additionalDirectories,
      headless: this.noOneAnswers,
      ask: (request) => this.askPermission(request),
      toolTraits: (name) => this.profile.toolRegistry.get(name),
      onAbort: () => void this.interrupt(),
    });
    for (const { rule, tier } of grants) {
      try {
        policy.grant(rule, tier);
      } catch {
        this.notify({
          kind: "warning",
          message: `ignored a stored permission grant that no longer parses: ${rule}`,
        });
      }
    }
    return policy;
  }

  /**
   * Adds the instruction files of a sub-folder to the result of the first read or edit of a file
   * in it (once per folder and session), as Claude Code loads nested CLAUDE.md files.
   */
  private withNestedDocs(inner: AfterToolCallHook): AfterToolCallHook {
    const nested = createNestedDocs(this.environment, {
      providerFiles: this.profile.projectDocFiles,
      ...(this.parts.env.HOME !== undefined && { homeDir: this.parts.env.HOME }),
    });
    return async (call, result) => {
      const replaced = await inner(call, result);
      const kind = callKind(call.toolName);
      if ((kind !== "read" && kind !== "edit") || result.isError) return replaced;
      const reminders: string[] = [];
      for (const file of callPaths(call.toolName, call.arguments)) {
        const reminder = await nested(file).catch(() => undefined);
        if (reminder !== undefined) reminders.push(reminder);
      }
      if (reminders.length === 0) return replaced;
      const out = replaced ?? result;
      return { ...out, output: `${out.output}\n\n${reminders.join("\n\n")}` };
    };
  }

  /** Tells the checkpoints a call's change is made, so their background snapshot may read the tree. */
  private readonly changeMade: AfterToolCallHook = (call) => {
    this.checkpoints.changeMade(call.callId);
    return undefined;
  };

  private sessionConfig(policy: PermissionPolicy): Partial<SessionConfig> {
    return {
      hooks: this.hooks.sessionHooks,
      subagentTypes: this.parts.subagentTypes,
      skills: this.parts.skills,
      userInstructionFiles: this.userInstructionFiles,
      beforeToolCall: createToolGuard({
        ...(this.hooks.has("PreToolUse") && { preToolUse: (call) => this.hooks.preToolUse(call) }),
        ...(!this.noOneAnswers && { ask: (request) => this.askPermission(request) }),
        onHalt: (reason) => {
          this.notify({ kind: "warning", message: `Stopped by a hook: ${reason}` });
          void this.active.session.interrupt();
        },
        policy,
        checkpoints: this.parts.remote ? undefined : this.checkpoints,
        registry: () => this.active.session.profile.toolRegistry,
        userMessageId: () => this.active.recorder.lastUserEntryId,
        onSnapshotError: (error) => {
          if (this.snapshotWarned) return;
          this.snapshotWarned = true;
          this.notify({
            kind: "warning",
            message: `Checkpoints are not working, so /undo cannot restore changes: ${error instanceof Error ? error.message : String(error)}`,
          });
        },
      }),
      ...(this.parts.reasoningEffort !== undefined && { reasoningEffort: this.parts.reasoningEffort }),
      afterToolCall: this.withNestedDocs(
        this.codeIntelligence?.afterToolCall(this.changeMade) ?? this.changeMade,
      ),
      ...(this.parts.systemPrompt !== undefined && { systemPrompt: this.parts.systemPrompt }),
      userInstructions: [USER_CONTEXT_INSTRUCTIONS, this.parts.appendSystemPrompt]
        .filter((part) => part !== undefined)
        .join("\n\n"),
    };
  }

  /** Makes a session from the parts the current one and its listeners follow. */
  private install(parts: SessionParts, samePolicy?: PermissionPolicy): void {
    // "Always allow" lasts the session: a new or resumed session starts from its own grants,
    // a rebuilt one keeps the policy it had.
    const policy = samePolicy ?? this.createPolicy(this.active?.policy.mode ?? this.parts.mode, parts.grants);
    // A request's connection retries and its mid-answer retries share one count.
    const retries = requestRetries(
      modelRetryPolicy(
        (message, detail) =>
          this.notify({ kind: "warning", message, retry: { ...detail, until: Date.now() + detail.delayMs } }),
        this.parts.settings.retry,
      ),
    );
    const profile =
      this.modelValue === this.profile.model ? this.profile : this.profile.withModel(this.modelValue);
    const session = Session.fromHistory({
      id: parts.writer.sessionId,
      profile,
      environment: this.environment,
      client: this.client,
      config: reportingAllowed(
        this.sessionConfig(policy),
        this.parts.ui.toolCallAllowed?.bind(this.parts.ui),
      ),
      history: parts.history,
      ...(this.mcpManager !== undefined && {
        toolsReady: this.mcpReady,
        toolInstructions: this.mcpManager.instructions,
      }),
      startSource: this.nextStart,
      retry: retries.midStream,
      // Every completed turn is written to the transcript before the next model request goes out.
      openStream: (client, request) => {
        const stream = flushedThen(
          () => this.active.recorder.flush(),
          streamWithRetry(client, request, retries.forStream(request)),
        );
        // MCP servers not started yet (their tools came from the cache) start once the model has
        // begun to answer: their start-up (and the MCP SDK's loading) then takes the CPU while the
        // model works, not while the request is being sent. A call to one of their tools waits.
        const mcp = this.mcpManager;
        return mcp === undefined ? stream : afterFirst(stream, () => mcp.start());
      },
    });
    applyReadOnlyMode(session, policy.mode);
    // The prompt's git snapshot runs while the rest of start-up (the provider's SDK loading)
    // takes the CPU, rather than after it.
    session.prepare();
    // A session rebuilt from this one's history (after an error, a rewind) continues it.
    this.nextStart = "resume";
    const recorder = createHistoryRecorder({
      writer: parts.writer,
      source: session,
      rootId: parts.rootId,
      alreadyWritten: parts.restored,
      ...(parts.entries !== undefined && { written: parts.entries }),
      onUserMessage: (id, text) => this.userMessages.set(id, text),
      onError: (error) =>
        this.notify({
          kind: "warning",
          message: `The transcript could not be written, so this session cannot be resumed: ${error instanceof Error ? error.message : String(error)}`,
        }),
    });
    let unsubscribe: (() => void) | undefined;
    const active: ActiveSession = {
      session,
      writer: parts.writer,
      rootId: parts.rootId,
      recorder,
      policy,
      detach: () => {
        unsubscribe?.();
        unsubscribe = undefined;
      },
      steering: [],
      lastEnd: undefined,
    };
    this.active = active;
    const childModels = new Map<string, string>();
    unsubscribe = session.subscribe((event) => {
      recorder.onEvent(event);
      if (event.kind === "subagent_event") this.recordSubagentSpending(event.data, childModels);
      if (event.kind === "assistant_text_end" && event.sessionId === session.id) {
        this.spending.record(this.modelValue, event.data.usage);
        this.lastContext = contextShare(event.data.usage, session.profile.contextWindowSize);
      }
      // A compaction that shrank the history changes the context in use now, before any request
      // has measured it: the status line shows the compacted history's estimate until then.
      if (
        event.kind === "compaction_end" &&
        event.sessionId === session.id &&
        event.data.tokensAfter !== event.data.tokensBefore
      )
        this.lastContext = contextShare(
          { inputTokens: event.data.tokensAfter, outputTokens: 0, totalTokens: event.data.tokensAfter },
          session.profile.contextWindowSize,
        );
      if (event.kind === "processing_end" && event.sessionId === session.id)
        active.lastEnd = event.data.reason;
      if (event.kind === "tool_call_end") this.armShellParserPreload();
      else if (event.kind === "assistant_text_start" || event.kind === "processing_end")
        this.disarmShellParserPreload();
      this.deliver({ source: "session", event });
      if (
        event.kind === "steering_injected" &&
        event.sessionId === session.id &&
        event.data.source === "host"
      ) {
        const at = active.steering.indexOf(event.data.content);
        if (at >= 0) this.setSteering(active.steering.filter((_, i) => i !== at));
      }
    });
    if (parts.history.length > 0 || parts.restored > 0 || this.listeners.size > 0) {
      this.notify({ kind: "session_changed", sessionId: session.id, restoredTurns: parts.history.length });
    }
  }

  /** A subagent's model responses count in /cost too (its own model's prices), nested ones included. */
  private recordSubagentSpending(
    data: Extract<SessionEvent, { kind: "subagent_event" }>["data"],
    models: Map<string, string>,
  ): void {
    const inner = data.event;
    if (inner.kind === "session_start") models.set(data.agentId, inner.data.model);
    else if (inner.kind === "assistant_text_end")
      this.spending.record(models.get(data.agentId) ?? this.modelValue, inner.data.usage);
    else if (inner.kind === "subagent_event") this.recordSubagentSpending(inner.data, models);
  }

  /** Closes the current session quietly (its SESSION_END is not forwarded) and its transcript. */
  private async retire(): Promise<void> {
    this.active.detach();
    await this.active.session.close();
    await this.active.recorder.flush();
    await this.active.writer.close();
  }

  /** Replaces the current session by one continuing its history in the same transcript. */
  private async rebuild(): Promise<void> {
    const old = this.active.session;
    this.active.detach();
    await old.close();
    await this.active.recorder.flush();
    this.continueFrom(old.history, this.active.recorder.entries());
  }

  /**
   * Installs a session continuing from `history` in the current transcript, with the same
   * permission policy; the old session is closed in the background, quietly.
   */
  private continueFrom(history: readonly Turn[], entries: readonly (EntryRef | undefined)[]): void {
    const old = this.active.session;
    this.active.detach();
    void old.close().catch(() => {});
    this.install(
      {
        writer: this.active.writer,
        rootId: this.active.rootId,
        history,
        restored: entries.length,
        entries,
        grants: [],
      },
      this.active.policy,
    );
  }

  /**
   * Steering the finished cycle left undelivered: returned as the next message to send when the
   * cycle completed, given back to the user (steering_dropped) when it was interrupted or failed.
   */
  private lateSteering(session: Session): string | undefined {
    if (session !== this.active.session) return undefined;
    const late = session.takeSteering();
    if (late.length === 0) return undefined;
    this.setSteering([]);
    if (
      this.closed ||
      session.state === "closed" ||
      this.active.lastEnd === "aborted" ||
      this.active.lastEnd === "error"
    ) {
      this.notify({ kind: "steering_dropped", messages: late });
      return undefined;
    }
    return late.join("\n\n");
  }

  private setSteering(messages: readonly string[]): void {
    this.active.steering = messages;
    this.notify({ kind: "steering_pending", messages });
  }

  /** Raises a start-up warning (replayed to the first listener). */
  warn(message: string): void {
    this.notify({ kind: "warning", message });
  }

  private notify(notice: RuntimeNotice): void {
    if (this.listeners.size === 0) {
      this.early.push(notice);
      return;
    }
    this.deliver({ source: "runtime", notice });
  }

  private deliver(update: RuntimeUpdate): void {
    for (const listener of this.listeners) safeCall(listener, update);
  }
}

/** Files under a local folder, relative to it (a skill's bundled files). */
async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(folder, join(e.parentPath, e.name)))
    .sort();
}

/** Claude Code's model aliases in command files: they mean the session's own model here. */
const MODEL_ALIASES: ReadonlySet<string> = new Set(["inherit", "sonnet", "opus", "haiku"]);
/**
 * The tools' environment on an SSH host: the target resolved as OpenSSH would (ssh config
 * aliases, identity file, known_hosts), the user's agent used when there is one, and the
 * connection made now so a wrong host, key or path is a configuration error before anything runs.
 */
async function openRemote(spec: string, env: Env): Promise<ExecutionEnvironment> {
  const { resolveSshTarget, SshExecutionEnvironment, SshTargetError } = await import("@attractor/agent");
  try {
    const target = await resolveSshTarget(spec, {
      ...(env.HOME !== undefined && { home: env.HOME }),
      ...(env.USER !== undefined && { localUser: env.USER }),
    });
    const environment = new SshExecutionEnvironment({
      ...target,
      ...(env.SSH_AUTH_SOCK !== undefined && { agent: env.SSH_AUTH_SOCK }),
    });
    await environment.initialize();
    return environment;
  } catch (error) {
    if (error instanceof SshTargetError || (error instanceof Error && "code" in error))
      throw new ConfigurationError(`--remote ${spec}: ${error.message}`);
    throw error;
  }
}

/** Plan mode is read-only in the session too: only read-only tools are offered, with plan instructions. */
function applyReadOnlyMode(session: Session, mode: PermissionMode): void {
  session.updateConfig({ readOnlyMode: mode === "plan" ? "plan" : undefined });
}

/** Runs `before` when iteration starts, then yields the stream. */
/** The stream as it is, calling `then` once its first item has arrived (or it ended without one). */
async function* afterFirst<T>(stream: AsyncIterable<T>, then: () => void): AsyncGenerator<T> {
  let called = false;
  try {
    for await (const item of stream) {
      if (!called) {
        called = true;
        then();
      }
      yield item;
    }
  } finally {
    if (!called) then();
  }
}

async function* flushedThen<T>(before: () => Promise<void>, stream: AsyncIterable<T>): AsyncGenerator<T> {
  await before();
  yield* stream;
}

/** The config with its beforeToolCall telling `allowed` of each call it lets run (checkpoint taken). */
function reportingAllowed(
  config: Partial<SessionConfig>,
  allowed: ((callId: string) => void) | undefined,
): Partial<SessionConfig> {
  const guard = config.beforeToolCall;
  if (allowed === undefined || guard === undefined) return config;
  return {
    ...config,
    beforeToolCall: async (call) => {
      const decision = await guard(call);
      if (decision?.action !== "deny") allowed(call.callId);
      return decision;
    },
  };
}

function safeCall(listener: Listener, update: RuntimeUpdate): void {
  try {
    listener(update);
  } catch {
    // A front end's faulty listener must not break the run.
  }
}
