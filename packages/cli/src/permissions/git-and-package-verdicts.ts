// Verdicts for git subcommands and JavaScript package managers, from their arguments alone.
import type { SafetyTier } from "./tiers.js";

/** A program's risk before paths and redirections are considered. */
export interface Verdict {
  readonly tier: SafetyTier;
  readonly reason: string;
  readonly readOnly: boolean;
}

/** How risky a git subcommand is, and whether it only reads, from its options and operands. */
export function gitSubcommandVerdict(
  sub: string,
  rest: readonly string[],
  short: Set<string>,
  long: Set<string>,
  operands: readonly string[],
): Verdict {
  const v = (tier: SafetyTier, reason: string, readOnly = false): Verdict => ({ tier, reason, readOnly });
  const force = short.has("f") || long.has("--force");
  const writesOutput = rest.some(
    (a) => /^--output(=|$)/.test(a) || (/^-o/.test(a) && sub !== "grep" && sub !== "ls-files"),
  );
  const runsProgram = rest.some(
    (a) =>
      /^--(upload-pack|receive-pack|exec|ext-diff|open-files-in-pager)(=|$)/.test(a) ||
      /^-O/.test(a) ||
      (/^-u/.test(a) && sub === "ls-remote"),
  );
  if (runsProgram) return v("medium", `git ${sub} with an option that runs a program`);
  if (writesOutput && sub !== "grep") return v("medium", `git ${sub} writes its output to a file`);
  switch (sub) {
    case "reset":
      return long.has("--hard") || long.has("--merge") || long.has("--keep")
        ? v("high", "git reset --hard discards changes")
        : v("medium", "git reset");
    case "clean":
      return force || short.has("x") || short.has("d")
        ? v("high", "git clean deletes untracked files")
        : v("medium", "git clean");
    case "push":
      if (
        force ||
        long.has("--force-with-lease") ||
        long.has("--mirror") ||
        long.has("--delete") ||
        short.has("d") ||
        operands.some((o) => o.startsWith("+") || o.startsWith(":"))
      )
        return v("high", "git push rewrites or deletes remote history");
      return v("medium", "git push");
    case "checkout":
    case "restore":
      if (
        force ||
        operands.includes(".") ||
        rest.includes("--") ||
        long.has("--worktree") ||
        short.has("W") ||
        sub === "restore"
      )
        return v("high", `git ${sub} discards working-tree changes`);
      return v("medium", `git ${sub}`);
    case "branch":
      if (short.has("D") || short.has("d") || long.has("--delete") || short.has("m") || short.has("M"))
        return v(short.has("D") || force ? "high" : "medium", "git branch deletes or renames a branch");
      return v(
        "none",
        "git branch",
        operands.length === 0 &&
          !rest.some(
            (a) =>
              /^--(set-upstream|unset-upstream|edit-description|track|copy)/.test(a) ||
              a === "-u" ||
              a === "-c" ||
              a === "-C",
          ),
      );
    case "tag":
      return operands.length === 0 || short.has("l") || long.has("--list")
        ? v("none", "git tag", !short.has("d"))
        : v("medium", "git tag");
    case "stash":
      return ["drop", "clear"].includes(operands[0] ?? "")
        ? v("high", `git stash ${operands[0]} loses stashed work`)
        : operands[0] === "list" || operands[0] === "show"
          ? v("none", `git stash ${operands[0]}`, true)
          : v("medium", "git stash");
    case "filter-branch":
    case "filter-repo":
      return v("high", "rewrites history");
    case "reflog":
      return ["expire", "delete"].includes(operands[0] ?? "")
        ? v("high", "expires the reflog")
        : v("none", "git reflog", true);
    case "gc":
    case "prune":
      return v("high", `git ${sub} can drop unreachable commits`);
    case "remote":
      return operands.length === 0
        ? v("none", "git remote", true)
        : operands[0] === "get-url"
          ? v("none", "git remote get-url", true)
          : v("medium", `git remote ${operands[0]}`);
    case "config": {
      const reads = rest.some(
        (a) =>
          /^(--get|--get-all|--get-regexp|--list|-l|--show-origin|--show-scope|--name-only)$/.test(a) ||
          a === "get" ||
          a === "list",
      );
      const writes = rest.some((a) =>
        /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|-e|--edit|set|unset)$/.test(
          a,
        ),
      );
      return reads && !writes
        ? v("none", "git config (read)", true)
        : v("medium", "git config changes configuration");
    }
    case "grep":
      return v("none", "git grep", true);
    case "status":
    case "diff":
    case "log":
    case "show":
    case "blame":
    case "annotate":
    case "rev-parse":
    case "ls-files":
    case "ls-tree":
    case "cat-file":
    case "describe":
    case "shortlog":
    case "whatchanged":
    case "merge-base":
    case "rev-list":
    case "name-rev":
    case "count-objects":
    case "check-ignore":
    case "check-attr":
    case "for-each-ref":
    case "show-ref":
    case "show-branch":
    case "var":
    case "version":
    case "range-diff":
    case "diff-tree":
    case "diff-files":
    case "diff-index":
      return v("none", `git ${sub}`, true);
    default:
      return v("medium", `git ${sub || "command"}`.trim());
  }
}

/** npm, pnpm, yarn and bun: publishing is high risk, tests and listings are not. */
export function packageManagerVerdict(argv: readonly string[]): Verdict {
  const program = argv[0] as string;
  const operands = argv.slice(1).filter((a) => !a.startsWith("-") || a === "-");
  const sub = operands[0] ?? "";
  const v = (tier: SafetyTier, reason: string, readOnly = false): Verdict => ({ tier, reason, readOnly });
  if (["publish", "unpublish", "deprecate", "dist-tag", "owner"].includes(sub))
    return v("high", `${program} ${sub} changes a published package`);
  if (
    sub === "test" ||
    sub === "t" ||
    (sub === "run" && /^(test|lint|typecheck|check|build)(:|$)/.test(operands[1] ?? ""))
  )
    return v("none", `${program} ${operands.slice(0, sub === "run" ? 2 : 1).join(" ")}`);
  if (
    [
      "ls",
      "list",
      "view",
      "info",
      "outdated",
      "why",
      "explain",
      "audit",
      "--version",
      "-v",
      "version",
    ].includes(sub) &&
    operands.length <= 2
  )
    return v("none", `${program} ${sub}`, !["audit", "version"].includes(sub));
  return v("medium", `${program} ${sub}`.trim());
}
