import type { BeforeToolCallDecision, BeforeToolCallHook, ToolCallInfo } from "@attractor/agent";
import { type CallKind, callKind, callPaths } from "./call-targets.js";
import { programName, type SimpleCommand } from "./command-parser.js";
import {
  assessShellCommand,
  type CommandAssessment,
  type LineAssessment,
  maxTier,
  type SafetyTier,
} from "./command-safety.js";
import type { PermissionMode } from "./modes.js";
import { canonicalPath, displayPath, extraHardLinks, isInside, UnresolvablePathError } from "./paths.js";
import {
  commandPatternMatches,
  type PermissionRule,
  parseRules,
  pathPatternMatches,
  pathRulePattern,
  ruleAppliesTo,
} from "./rules.js";
import { codeRunningReason, createSensitiveFileMatcher, type SensitivePattern } from "./sensitive-files.js";
import { webFetchEvaluation } from "./web-rules.js";

/** What the user is asked about; everything a prompt needs to explain the call. */
export interface PermissionRequest {
  readonly call: ToolCallInfo;
  readonly kind: CallKind;
  /** Why the call needs approval, in words a user and a model understand. */
  readonly reason: string;
  /** Shell only: the line's strictest tier. */
  readonly tier?: SafetyTier;
  readonly command?: string;
  /** Paths the call touches, project-relative when inside the project. */
  readonly paths: readonly string[];
  /** False for critical commands: "always allow" is not offered and would not be remembered. */
  readonly canAllowAlways: boolean;
  /** The rules "always allow" would add for this session, e.g. `shell(npm test:*)`. */
  readonly alwaysRules: readonly string[];
}

/** A user's answer to a permission prompt. */
export type AskAnswer = "allow_once" | "allow_always" | "deny" | "abort";

/**
 * An answer with details, from a program that answers for the user (the Claude Agent SDK's
 * canUseTool): what the model is told, the arguments to run with, rules to add.
 */
export interface AskReply {
  readonly answer: "allow_once" | "deny" | "abort";
  /** deny, abort: what the model is told instead of the default refusal. */
  readonly message?: string;
  /** allow: run with these arguments; the deny rules and the tool's schema judge them again. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** allow: rules (settings syntax) granted for the rest of the session. */
  readonly rules?: readonly string[];
}

/** What an ask function may answer: a prompt's choice, or a reply with details. */
export type PermissionAnswer = AskAnswer | AskReply;

/** Asks the user; the TUI shows a prompt, tests answer directly. */
export type AskFunction = (request: PermissionRequest) => Promise<PermissionAnswer>;

/** The outcome of the rules alone, before anyone is asked. */
export type PermissionEvaluation =
  | { readonly behavior: "allow"; readonly reason: string }
  | { readonly behavior: "deny"; readonly reason: string; readonly message: string }
  | { readonly behavior: "ask"; readonly request: PermissionRequest };

/** The final outcome for a call. `aborted` is set when the user chose to stop the run. */
export type PermissionDecision =
  | {
      readonly behavior: "allow";
      readonly reason: string;
      /** The arguments the call runs with instead, when the one who allowed it changed them. */
      readonly arguments?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly behavior: "deny";
      readonly reason: string;
      readonly message: string;
      readonly aborted?: boolean;
    };

/** What the policy may know about a tool beyond its name (from its RegisteredTool). */
export interface ToolTraits {
  readonly readOnly?: boolean;
  readonly targets?: (args: Readonly<Record<string, unknown>>) => readonly string[];
}

export interface PermissionPolicyOptions {
  readonly mode: PermissionMode;
  /** Rule strings from settings (user and project concatenated). */
  readonly rules?: {
    readonly allow?: readonly string[];
    readonly ask?: readonly string[];
    readonly deny?: readonly string[];
  };
  /** Absolute project directory: paths outside it ask. */
  readonly projectRoot: string;
  /** More directories the tools may touch as if they were in the project (--add-dir). */
  readonly additionalDirectories?: readonly string[];
  /** Working directory relative paths resolve against; the project root by default. */
  readonly cwd?: string;
  /** Asks the user; without it (or when headless) what would ask is denied. */
  readonly ask?: AskFunction;
  /** No user is present: asks become denials the model can act on. */
  readonly headless?: boolean;
  readonly sensitivePatterns?: readonly SensitivePattern[];
  /** Traits of tools this module does not know by name (custom tools). */
  readonly toolTraits?: (toolName: string) => ToolTraits | undefined;
  /** Called when the user answers "abort" to a prompt. */
  readonly onAbort?: () => void;
}

/** A session's permission policy: deny → ask → allow, with a mode that may change at runtime. */
export interface PermissionPolicy {
  readonly mode: PermissionMode;
  setMode(mode: PermissionMode): void;
  /** The rules alone: what would happen without asking. Pure apart from reading the file system's symlinks. */
  evaluate(call: ToolCallInfo): Promise<PermissionEvaluation>;
  /** How a shell line is judged here (project root and working directory of this policy). */
  assessShell(command: string): Promise<LineAssessment>;
  /** The final decision: asks the user when needed (or denies when headless). */
  check(call: ToolCallInfo): Promise<PermissionDecision>;
  /** A hook for SessionConfig.beforeToolCall. */
  readonly beforeToolCall: BeforeToolCallHook;
  /** Rules granted by "always allow" in this session. */
  grants(): readonly string[];
  /** Adds a session grant (e.g. restored on resume); the rule string syntax of settings. */
  grant(rule: string, maxTier?: SafetyTier): void;
}

interface Grant {
  readonly rule: PermissionRule;
  /** Shell grants cover commands up to the tier they were granted for. */
  readonly maxTier: SafetyTier;
}

/** Programs whose first operand is a subcommand worth keeping in an "always allow" prefix. */
const SUBCOMMAND_PROGRAMS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "make",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "gh",
  "dotnet",
  "mvn",
  "gradle",
  "terraform",
  "brew",
  "apt",
  "apt-get",
  "systemctl",
]);

interface DescribedCall {
  readonly kind: CallKind;
  /** Where the call's relative paths resolve: its session's working directory, real path. */
  readonly cwd: string;
  readonly readOnlyTool: boolean;
  readonly command?: string;
  readonly line?: LineAssessment;
  /** Canonical absolute paths with their project-relative form (undefined when outside). */
  readonly files: readonly {
    readonly absolute: string;
    readonly relative?: string;
    readonly shown: string;
    /** The file has more than one hard link. */
    readonly hardLinked: boolean;
  }[];
}

const TIER_RANK: Readonly<Record<SafetyTier, number>> = { none: 0, medium: 1, high: 2, critical: 3 };

/** Creates a policy from settings rules and a mode; see PermissionPolicy. */
export function createPermissionPolicy(options: PermissionPolicyOptions): PermissionPolicy {
  let mode = options.mode;
  const root = canonicalPath(options.projectRoot, "/");
  const extraRoots = (options.additionalDirectories ?? []).map((d) => canonicalPath(d, root));
  /** Where a shell command may read without asking: the project and the added directories. */
  const roots = [root, ...extraRoots];
  const cwd = options.cwd ? canonicalPath(options.cwd, root) : root;
  const allowRules = parseRules(options.rules?.allow ?? []);
  const askRules = parseRules(options.rules?.ask ?? []);
  const denyRules = parseRules(options.rules?.deny ?? []);
  const isSensitive = createSensitiveFileMatcher(options.sensitivePatterns);
  const sessionGrants: Grant[] = [];

  const assessShell = (command: string) => assessShellCommand(command, { cwd, projectRoot: root });

  const describe = async (call: ToolCallInfo): Promise<DescribedCall> => {
    const traits = options.toolTraits?.(call.toolName);
    const kind = callKind(call.toolName);
    // A subagent's calls resolve against its own directory, judged by its real path: a
    // working_dir reached through a symlink out of the project makes every call outside.
    const callCwd = call.workingDirectory ? canonicalPath(call.workingDirectory, root) : cwd;
    let raw = callPaths(call.toolName, call.arguments);
    if (kind === "other" && traits?.targets) raw = traits.targets(call.arguments).filter((p) => p !== "*");
    if (!isInside(root, callCwd)) raw = [callCwd, ...raw];
    const files = raw.map((p) => {
      const absolute = canonicalPath(p, callCwd);
      // A file with several hard links may be one outside the project under a second name.
      const links = extraHardLinks(absolute);
      const inside = isInside(root, absolute) && links === undefined;
      const shown = displayPath(root, absolute);
      return {
        absolute,
        relative: inside ? displayPath(root, absolute) : undefined,
        shown: links === undefined ? shown : `${shown} (a file with ${links} hard links)`,
        hardLinked: links !== undefined,
      };
    });
    if (kind === "shell") {
      const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
      return {
        kind,
        cwd: callCwd,
        readOnlyTool: false,
        command,
        line: await assessShellCommand(command, { cwd: callCwd, projectRoot: root }),
        files,
      };
    }
    const readOnlyTool =
      kind === "read" || kind === "interaction" || call.toolName === "wait" || traits?.readOnly === true;
    return { kind, cwd: callCwd, readOnlyTool, files };
  };

  /** Does `rule` match this call? For shell: does it match this one sub-command? */
  const matchesFile = (rule: PermissionRule, file: DescribedCall["files"][number]) =>
    rule.pattern === undefined || pathPatternMatches(rule.pattern, file.relative, file.absolute);
  /** Deny and ask rules see a command with and without its wrappers (`sudo rm` matches `rm:*`). */
  const matchesCommand = (rule: PermissionRule, command: SimpleCommand) =>
    rule.pattern === undefined ||
    denyTexts(command).some((text) => commandPatternMatches(rule.pattern as string, text));
  /** Allow rules and grants must name an elevated command as such (`sudo …`). */
  const coversCommand = (rule: PermissionRule, command: SimpleCommand) =>
    rule.pattern === undefined || commandPatternMatches(rule.pattern, ruleText(command));

  /** Deny and ask rules: any part matching is enough. */
  const anyMatch = (rules: readonly PermissionRule[], call: ToolCallInfo, d: DescribedCall) =>
    rules.find((rule) => {
      if (!ruleAppliesTo(rule, call.toolName)) return false;
      if (rule.pattern === undefined) return true;
      if (d.kind === "shell") return (d.line?.commands ?? []).some((a) => matchesCommand(rule, a.command));
      return d.files.some((f) => matchesFile(rule, f));
    });

  /** Allow rules and grants: every part must be covered. */
  const covers = (
    rules: readonly { rule: PermissionRule; maxTier: SafetyTier }[],
    call: ToolCallInfo,
    d: DescribedCall,
  ) => {
    const applicable = rules.filter((g) => ruleAppliesTo(g.rule, call.toolName));
    if (applicable.length === 0) return false;
    if (d.kind === "shell") {
      const parts = distinctCommands(d.line?.commands ?? []);
      return (
        d.line?.understood === true &&
        parts.length > 0 &&
        parts.every(
          (a) =>
            // Read-only parts need no rule: `if true; then npm test; fi` is covered by `npm test`.
            a.readOnly ||
            applicable.some(
              (g) =>
                TIER_RANK[a.tier] <= TIER_RANK[g.maxTier] &&
                coversCommand(g.rule, a.command) &&
                // `git diff:*` covers the arguments, not `--output=F` or `--ext-diff` among them,
                // unless the rule names that option itself (`sed -i:*`).
                (a.effectOption === undefined ||
                  !(g.rule.pattern ?? "*").includes("*") ||
                  (g.rule.pattern ?? "").includes(a.effectOption)),
            ),
        )
      );
    }
    if (d.files.length === 0) return applicable.some((g) => g.rule.pattern === undefined);
    return d.files.every((f) => applicable.some((g) => matchesFile(g.rule, f)));
  };

  const alwaysRulesFor = (call: ToolCallInfo, d: DescribedCall): { rules: string[]; tier: SafetyTier } => {
    if (d.kind === "shell") {
      const rules: string[] = [];
      let tier: SafetyTier = "none";
      // Nothing is remembered for a line that was not fully understood.
      if (!d.line?.understood) return { rules, tier: "critical" };
      for (const a of distinctCommands(d.line.commands)) {
        tier = maxTier(tier, a.tier);
        if (a.command.argv.length === 0 || a.readOnly) continue;
        const prefix = commandPrefix(a);
        // A literal `*` would widen the rule into a wildcard: such a command is not remembered.
        if (prefix.slice(0, prefix.endsWith(":*") ? -2 : undefined).includes("*")) return { rules: [], tier };
        const rule = `shell(${prefix})`;
        if (!rules.includes(rule)) rules.push(rule);
      }
      return { rules, tier };
    }
    if (d.files.length > 0 && (d.kind === "read" || d.kind === "edit")) {
      return {
        rules: d.files.map((f) => `${call.toolName}(${pathRulePattern(f.relative, f.absolute)})`),
        tier: "none",
      };
    }
    return { rules: [call.toolName], tier: "none" };
  };

  const ask = (call: ToolCallInfo, d: DescribedCall, reason: string): PermissionEvaluation => {
    const critical = d.line?.tier === "critical" || d.line?.understood === false;
    const always = critical ? { rules: [] } : alwaysRulesFor(call, d);
    return {
      behavior: "ask",
      request: {
        call,
        kind: d.kind,
        reason,
        ...(d.line ? { tier: d.line.tier, command: d.command } : {}),
        paths: d.files.map((f) => f.shown),
        canAllowAlways: !critical && always.rules.length > 0,
        alwaysRules: always.rules,
      },
    };
  };

  const evaluate = async (call: ToolCallInfo): Promise<PermissionEvaluation> => {
    const web = webFetchEvaluation(call, { ask: askRules, deny: denyRules }, mode);
    if (web) return web;
    let d: DescribedCall;
    try {
      d = await describe(call);
    } catch (error) {
      if (!(error instanceof UnresolvablePathError)) throw error;
      return {
        behavior: "deny",
        reason: error.message,
        message: `Permission denied: ${error.message}, so where this ${call.toolName} call would act cannot be checked. Do not retry it with this path.`,
      };
    }
    // A hard-linked file is outside wherever it sits: its other name may be anywhere.
    const outside = d.files.filter(
      (f) => f.relative === undefined && (f.hardLinked || !extraRoots.some((r) => isInside(r, f.absolute))),
    );
    // 1. The built-in deny list: never runs.
    if (d.line?.blocked) {
      const reason = d.line.commands.find((a) => a.blocked)?.reason ?? d.line.reason;
      return {
        behavior: "deny",
        reason: `blocked: ${reason}`,
        message: `Permission denied: this command is on the built-in deny list (${reason}) and is never run. Do not retry it in any form.`,
      };
    }
    // 2. Deny rules from settings.
    const denied = anyMatch(denyRules, call, d);
    if (denied) {
      return {
        behavior: "deny",
        reason: `denied by rule ${denied.source}`,
        message: `Permission denied: the settings rule "${denied.source}" forbids this ${call.toolName} call. Do not retry it; find another way or ask the user.`,
      };
    }
    // 3. Plan mode: read-only tools (and read-only shell commands) only.
    if (mode === "plan") {
      const readOnly =
        d.readOnlyTool || (d.kind === "shell" && d.line?.readOnly === true && !shellReachesOutside(d, roots));
      if (!readOnly) {
        return {
          behavior: "deny",
          reason: "plan mode: read-only tools only",
          message: `Permission denied: plan mode allows read-only tools only, so ${call.toolName} cannot run. Investigate with read-only tools and present your plan; the user will switch modes to carry it out.`,
        };
      }
    }
    // 4. Critical commands always ask, whatever the mode or rules.
    if (d.line?.tier === "critical") return ask(call, d, `critical command: ${d.line.reason}`);
    // 5. Yolo: everything else runs.
    if (mode === "yolo") return { behavior: "allow", reason: "yolo mode" };
    // A shell line reading outside the project (or somewhere not known statically) asks whatever
    // was granted: a grant for `cat:*` was given for files in the project.
    // A settings allow rule naming a command exactly (no wildcard) may let it read outside.
    const outsideAllowed =
      d.kind === "shell" &&
      (d.line?.commands ?? [])
        .filter((a) => outsidePathsOf(a, roots).length > 0)
        .every((a) =>
          allowRules.some(
            (r) =>
              ruleAppliesTo(r, call.toolName) &&
              r.pattern !== undefined &&
              !r.pattern.includes("*") &&
              commandPatternMatches(r.pattern, ruleText(a.command)),
          ),
        );
    const reachesOutside = d.kind === "shell" && !outsideAllowed && shellReachesOutside(d, roots);
    if (reachesOutside) {
      const askRule = anyMatch(askRules, call, d);
      return ask(
        call,
        d,
        askRule
          ? `the settings rule "${askRule.source}" asks first`
          : `reaches outside the project (${outsidePaths(d, roots).join(", ")})`,
      );
    }
    // 6. "Always allow" answers of this session.
    if (covers(sessionGrants, call, d))
      return { behavior: "allow", reason: "allowed earlier in this session" };
    // 7. Ask rules, then allow rules, from settings.
    const askRule = anyMatch(askRules, call, d);
    if (askRule) return ask(call, d, `the settings rule "${askRule.source}" asks first`);
    if (
      covers(
        allowRules.map((rule) => ({ rule, maxTier: "high" as SafetyTier })),
        call,
        d,
      )
    ) {
      return { behavior: "allow", reason: "allowed by a settings rule" };
    }
    // 8. Defaults by kind and mode.
    if (outside.length > 0)
      return ask(
        call,
        d,
        `${outside.map((f) => f.shown).join(", ")} ${outside.length === 1 ? "is" : "are"} outside the project`,
      );
    switch (d.kind) {
      case "read":
      case "interaction":
        return { behavior: "allow", reason: "read-only tool" };
      case "agent":
        return { behavior: "allow", reason: "subagent tools run their own calls through this policy" };
      case "edit": {
        const runsCode = codeRunningReason(d.files.map((f) => f.relative ?? f.absolute));
        if (runsCode !== undefined) return ask(call, d, runsCode);
        const sensitive = d.files.filter((f) => isSensitive(f.relative ?? f.absolute));
        if (sensitive.length > 0)
          return ask(call, d, `${sensitive.map((f) => f.shown).join(", ")} may hold secrets or settings`);
        if (mode === "auto-edit") return { behavior: "allow", reason: "auto-edit mode" };
        return ask(call, d, "file edits ask in normal mode");
      }
      case "shell":
        if (d.line?.readOnly && !reachesOutside) return { behavior: "allow", reason: "read-only command" };
        return ask(
          call,
          d,
          `shell command (${d.line?.tier ?? "medium"} risk: ${d.line?.reason ?? "unknown"})`,
        );
      default:
        if (d.readOnlyTool) return { behavior: "allow", reason: "read-only tool" };
        return ask(call, d, `${call.toolName} is not known to be read-only`);
    }
  };

  const check = async (call: ToolCallInfo): Promise<PermissionDecision> => {
    const evaluation = await evaluate(call);
    if (evaluation.behavior !== "ask") return evaluation;
    const { request } = evaluation;
    if (options.headless || !options.ask) {
      return {
        behavior: "deny",
        reason: `needs approval: ${request.reason}`,
        message: headlessMessage(request, mode),
      };
    }
    const given = await options.ask(request);
    if (typeof given === "object") return replyDecision(call, given);
    const answer = given;
    switch (answer) {
      case "allow_always":
        if (request.canAllowAlways) {
          const tier = request.tier ?? "none";
          for (const rule of request.alwaysRules)
            sessionGrants.push({ rule: parseRules([rule])[0] as PermissionRule, maxTier: tier });
        }
        return { behavior: "allow", reason: "allowed by the user" };
      case "allow_once":
        return { behavior: "allow", reason: "allowed once by the user" };
      case "abort":
        options.onAbort?.();
        return {
          behavior: "deny",
          reason: "the user stopped the run",
          message:
            "Permission denied: the user stopped this run. Do not continue; wait for new instructions.",
          aborted: true,
        };
      default:
        return {
          behavior: "deny",
          reason: "denied by the user",
          message: `Permission denied: the user declined this ${call.toolName} call. Do not retry it; ask the user how to proceed or try a different approach.`,
        };
    }
  };

  /** A detailed reply: changed arguments pass the deny rules again, granted rules join the session's. */
  const replyDecision = async (call: ToolCallInfo, reply: AskReply): Promise<PermissionDecision> => {
    if (reply.answer === "abort") options.onAbort?.();
    if (reply.answer !== "allow_once") {
      const fallback =
        reply.answer === "abort"
          ? "Permission denied: the user stopped this run. Do not continue; wait for new instructions."
          : `Permission denied: the user declined this ${call.toolName} call.`;
      return {
        behavior: "deny",
        reason: reply.answer === "abort" ? "the user stopped the run" : "denied by the user",
        message: reply.message?.trim() ? `Permission denied: ${reply.message}` : fallback,
        ...(reply.answer === "abort" && { aborted: true }),
      };
    }
    if (reply.arguments !== undefined) {
      const again = await evaluate({ ...call, arguments: reply.arguments });
      if (again.behavior === "deny") return again;
    }
    // Rules are checked by whoever builds the reply; one that does not parse grants nothing.
    for (const rule of reply.rules ?? []) {
      try {
        const [parsed] = parseRules([rule]);
        if (parsed) sessionGrants.push({ rule: parsed, maxTier: "high" });
      } catch {}
    }
    return {
      behavior: "allow",
      reason: "allowed by the user",
      ...(reply.arguments !== undefined && { arguments: reply.arguments }),
    };
  };

  const beforeToolCall: BeforeToolCallHook = async (call): Promise<BeforeToolCallDecision> => {
    const decision = await check(call);
    if (decision.behavior === "deny") return { action: "deny", message: decision.message };
    return decision.arguments !== undefined
      ? { action: "rewrite", arguments: decision.arguments }
      : { action: "allow" };
  };

  return {
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = next;
    },
    evaluate,
    assessShell,
    check,
    beforeToolCall,
    grants: () => sessionGrants.map((g) => g.rule.source),
    grant(rule, tier = "high") {
      if (tier === "critical") return;
      sessionGrants.push({ rule: parseRules([rule])[0] as PermissionRule, maxTier: tier });
    },
  };
}

/** The deny message a headless run gives the model for a call that would have asked. */
export function headlessMessage(request: PermissionRequest, mode: PermissionMode): string {
  const suggestion = request.alwaysRules[0];
  const how =
    request.tier === "critical"
      ? "Critical commands always need a person to approve them."
      : `The user can allow it by re-running with a more permissive --mode than "${mode}"${suggestion ? ` or by adding "${suggestion}" to permissions.allow in .attractor/settings.json` : ""}.`;
  return `Permission denied: ${request.call.toolName} needs approval (${request.reason}), but no user is present to approve it. Do not retry this call; use an approach that needs no approval, or finish and report what remains to be done. ${how}`;
}

/** One entry per distinct sub-command (the pipeline checks may name the same command twice). */
function distinctCommands(commands: readonly CommandAssessment[]): CommandAssessment[] {
  const out = new Map<SimpleCommand, CommandAssessment>();
  for (const a of commands) {
    const prev = out.get(a.command);
    if (!prev || TIER_RANK[a.tier] > TIER_RANK[prev.tier]) out.set(a.command, a);
  }
  return [...out.values()].filter((a) => a.command.argv.length > 0 || a.command.redirects.length > 0);
}

/**
 * The narrowest rule "always allow" remembers for a command: `npm test` exactly, `git log:*` for a
 * read-only command with arguments, the whole text for high-risk and elevated commands.
 */
function commandPrefix(a: CommandAssessment): string {
  const argv = a.command.argv;
  const text = ruleText(a.command);
  const writes = a.command.redirects.some((r) => r.op.includes(">") && r.target !== undefined);
  // An option that writes or runs is remembered as written: a wildcard would not cover it.
  if (a.tier === "high" || a.command.elevated || writes || argv.length <= 1 || a.effectOption !== undefined)
    return text;
  const program = argv[0] as string;
  const sub = argv[1];
  if (SUBCOMMAND_PROGRAMS.has(program) && sub && /^[a-z][a-z0-9:_-]*$/.test(sub)) {
    const third = argv[2];
    if ((sub === "run" || sub === "exec") && third && /^[A-Za-z0-9:_-]+$/.test(third))
      return argv.length === 3 ? `${program} ${sub} ${third}` : `${program} ${sub} ${third}:*`;
    return argv.length === 2 ? `${program} ${sub}` : `${program} ${sub}:*`;
  }
  if (!/^[A-Za-z0-9_.+-]+$/.test(program)) return text;
  // Only read-only commands are remembered for any arguments; others for these arguments.
  return a.readOnly ? `${program}:*` : text;
}

/** Git's options that take a value before the subcommand. */
const GIT_GLOBAL_VALUES = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--super-prefix",
]);

/**
 * Every form deny and ask rules are tried against, so a spelling does not slip past them: as
 * written, with its wrappers (`sudo rm`), a path-named program by its name (`/usr/bin/touch x` is
 * `touch x`), and without the options before a subcommand (`git -c x=y push` is `git push`,
 * `npm --silent publish` is `npm publish`).
 */
function denyTexts(command: SimpleCommand): string[] {
  const argv = command.argv;
  const program = programName(argv[0] ?? "");
  const texts = [command.text, [...command.wrappers, command.text].join(" ")];
  if (argv[0]?.includes("/")) texts.push([program, ...argv.slice(1)].join(" "));
  let i = 1;
  while (i < argv.length && (argv[i] as string).startsWith("-") && argv[i] !== "-")
    i += program === "git" && GIT_GLOBAL_VALUES.has(argv[i] as string) ? 2 : 1;
  if (i > 1) texts.push([program, ...argv.slice(i)].join(" "));
  return texts;
}

/**
 * A command as allow rules and grants see it: `sudo` kept, and the files it writes by redirection,
 * so a grant for `echo done > log` does not cover `echo done > .git/hooks/pre-commit`.
 */
function ruleText(command: SimpleCommand): string {
  const writes = command.redirects
    .filter((r) => r.op.includes(">") && (r.target !== undefined || r.dynamic))
    .map((r) => `${r.op} ${r.target ?? "?"}`);
  return [...(command.elevated ? ["sudo"] : []), command.text, ...writes].join(" ");
}

/** Paths of a shell line outside the project, or not known before it runs. */
function outsidePaths(d: DescribedCall, roots: readonly string[]): string[] {
  return [...new Set((d.line?.commands ?? []).flatMap((a) => outsidePathsOf(a, roots)))];
}

/** One command's paths outside the project, or not known before it runs. */
function outsidePathsOf(a: CommandAssessment, roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of a.paths) {
    if (p.absolute === undefined) out.push(`${p.text} (not known before it runs)`);
    else if (
      !roots.some((r) => isInside(r, p.absolute as string)) &&
      !/^\/dev\/(null|stdin|stdout|stderr|fd\/\d+|tty)$/.test(p.absolute)
    )
      out.push(p.text);
  }
  return out;
}

/** True when a shell line names a path outside the project or one only known at run time. */
function shellReachesOutside(d: DescribedCall, roots: readonly string[]): boolean {
  return outsidePaths(d, roots).length > 0;
}
