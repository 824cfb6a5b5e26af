import type { BeforeToolCallDecision, BeforeToolCallHook, ToolCallInfo } from "@attractor/agent";
import { type CallKind, callKind, callPaths } from "./call-targets.js";
import type { SimpleCommand } from "./command-parser.js";
import {
  assessCommandLine,
  type CommandAssessment,
  type LineAssessment,
  maxTier,
  type SafetyTier,
} from "./command-safety.js";
import type { PermissionMode } from "./modes.js";
import { canonicalPath, displayPath, isInside } from "./paths.js";
import {
  commandPatternMatches,
  type PermissionRule,
  parseRules,
  pathPatternMatches,
  pathRulePattern,
  ruleAppliesTo,
} from "./rules.js";
import { createSensitiveFileMatcher, type SensitivePattern } from "./sensitive-files.js";

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

/** Asks the user; the TUI shows a prompt, tests answer directly. */
export type AskFunction = (request: PermissionRequest) => Promise<AskAnswer>;

/** The outcome of the rules alone, before anyone is asked. */
export type PermissionEvaluation =
  | { readonly behavior: "allow"; readonly reason: string }
  | { readonly behavior: "deny"; readonly reason: string; readonly message: string }
  | { readonly behavior: "ask"; readonly request: PermissionRequest };

/** The final outcome for a call. `aborted` is set when the user chose to stop the run. */
export type PermissionDecision =
  | { readonly behavior: "allow"; readonly reason: string }
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
  evaluate(call: ToolCallInfo): PermissionEvaluation;
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
  readonly readOnlyTool: boolean;
  readonly command?: string;
  readonly line?: LineAssessment;
  /** Canonical absolute paths with their project-relative form (undefined when outside). */
  readonly files: readonly {
    readonly absolute: string;
    readonly relative?: string;
    readonly shown: string;
  }[];
}

const TIER_RANK: Readonly<Record<SafetyTier, number>> = { none: 0, medium: 1, high: 2, critical: 3 };

/** Creates a policy from settings rules and a mode; see PermissionPolicy. */
export function createPermissionPolicy(options: PermissionPolicyOptions): PermissionPolicy {
  let mode = options.mode;
  const root = canonicalPath(options.projectRoot, "/");
  const extraRoots = (options.additionalDirectories ?? []).map((d) => canonicalPath(d, root));
  const cwd = options.cwd ? canonicalPath(options.cwd, root) : root;
  const allowRules = parseRules(options.rules?.allow ?? []);
  const askRules = parseRules(options.rules?.ask ?? []);
  const denyRules = parseRules(options.rules?.deny ?? []);
  const isSensitive = createSensitiveFileMatcher(options.sensitivePatterns);
  const sessionGrants: Grant[] = [];

  const describe = (call: ToolCallInfo): DescribedCall => {
    const traits = options.toolTraits?.(call.toolName);
    const kind = callKind(call.toolName);
    let raw = callPaths(call.toolName, call.arguments);
    if (kind === "other" && traits?.targets) raw = traits.targets(call.arguments).filter((p) => p !== "*");
    const files = raw.map((p) => {
      const absolute = canonicalPath(p, cwd);
      const inside = isInside(root, absolute);
      return {
        absolute,
        relative: inside ? displayPath(root, absolute) : undefined,
        shown: displayPath(root, absolute),
      };
    });
    if (kind === "shell") {
      const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
      return { kind, readOnlyTool: false, command, line: assessCommandLine(command), files };
    }
    const readOnlyTool =
      kind === "read" || kind === "interaction" || call.toolName === "wait" || traits?.readOnly === true;
    return { kind, readOnlyTool, files };
  };

  /** Does `rule` match this call? For shell: does it match this one sub-command? */
  const matchesFile = (rule: PermissionRule, file: DescribedCall["files"][number]) =>
    rule.pattern === undefined || pathPatternMatches(rule.pattern, file.relative, file.absolute);
  const matchesCommand = (rule: PermissionRule, command: SimpleCommand) =>
    rule.pattern === undefined || commandPatternMatches(rule.pattern, command.text);

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
        parts.length > 0 &&
        parts.every((a) =>
          applicable.some(
            (g) => TIER_RANK[a.tier] <= TIER_RANK[g.maxTier] && matchesCommand(g.rule, a.command),
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
      for (const a of distinctCommands(d.line?.commands ?? [])) {
        tier = maxTier(tier, a.tier);
        const rule = `shell(${commandPrefix(a)})`;
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
    const critical = d.line?.tier === "critical";
    const always = critical ? { rules: [] } : alwaysRulesFor(call, d);
    return {
      behavior: "ask",
      request: {
        call,
        kind: d.kind,
        reason,
        ...(d.line ? { tier: d.line.tier, command: d.command } : {}),
        paths: d.files.map((f) => f.shown),
        canAllowAlways: !critical,
        alwaysRules: always.rules,
      },
    };
  };

  const evaluate = (call: ToolCallInfo): PermissionEvaluation => {
    const d = describe(call);
    const outside = d.files.filter(
      (f) => f.relative === undefined && !extraRoots.some((r) => isInside(r, f.absolute)),
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
        d.readOnlyTool ||
        (d.kind === "shell" && d.line?.readOnly === true && !shellReachesOutside(d, cwd, root));
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
        const sensitive = d.files.filter((f) => isSensitive(f.relative ?? f.absolute));
        if (sensitive.length > 0)
          return ask(call, d, `${sensitive.map((f) => f.shown).join(", ")} may hold secrets or settings`);
        if (mode === "auto-edit") return { behavior: "allow", reason: "auto-edit mode" };
        return ask(call, d, "file edits ask in normal mode");
      }
      case "shell":
        if (d.line?.readOnly && !shellReachesOutside(d, cwd, root))
          return { behavior: "allow", reason: "read-only command" };
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
    const evaluation = evaluate(call);
    if (evaluation.behavior !== "ask") return evaluation;
    const { request } = evaluation;
    if (options.headless || !options.ask) {
      return {
        behavior: "deny",
        reason: `needs approval: ${request.reason}`,
        message: headlessMessage(request, mode),
      };
    }
    const answer = await options.ask(request);
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

  const beforeToolCall: BeforeToolCallHook = async (call): Promise<BeforeToolCallDecision> => {
    const decision = await check(call);
    return decision.behavior === "allow"
      ? { action: "allow" }
      : { action: "deny", message: decision.message };
  };

  return {
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = next;
    },
    evaluate,
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

/** The prefix "always allow" remembers: `git push`, `npm test`, `ls`; the whole text for high-risk commands. */
function commandPrefix(a: CommandAssessment): string {
  const argv = a.command.argv;
  if (a.tier === "high" || argv.length === 0) return a.command.text;
  const sub = argv[1];
  if (SUBCOMMAND_PROGRAMS.has(argv[0] as string) && sub && /^[a-z][a-z0-9:_-]*$/.test(sub)) {
    const third = argv[2];
    if ((sub === "run" || sub === "exec") && third && /^[A-Za-z0-9:_-]+$/.test(third))
      return `${argv[0]} ${sub} ${third}:*`;
    return `${argv[0]} ${sub}:*`;
  }
  return `${argv[0]}:*`;
}

/** True when a read-only shell line names a path outside the project (`cat /etc/passwd`, `cd ..`). */
function shellReachesOutside(d: DescribedCall, cwd: string, root: string): boolean {
  for (const a of d.line?.commands ?? []) {
    for (const arg of a.command.argv.slice(1)) {
      const candidate = arg.includes("=") && !arg.startsWith("/") ? arg.slice(arg.indexOf("=") + 1) : arg;
      if (!/^(\/|~|\.\.|\$)/.test(candidate) && !candidate.includes("/..") && !candidate.includes("../"))
        continue;
      if (candidate.startsWith("$")) return true;
      if (!isInside(root, canonicalPath(candidate, cwd))) return true;
    }
    for (const r of a.command.redirects) {
      if (
        r.target &&
        !/^&?\d+$/.test(r.target) &&
        r.target !== "/dev/null" &&
        !isInside(root, canonicalPath(r.target, cwd))
      )
        return true;
    }
  }
  return false;
}
