// Verdicts for git subcommands and JavaScript package managers, from their arguments alone.
import type { SafetyTier } from "./tiers.js";

/** A program's risk before paths and redirections are considered. */
export interface Verdict {
  readonly tier: SafetyTier;
  readonly reason: string;
  readonly readOnly: boolean;
}

/**
 * How risky a git subcommand is, and whether it only reads, from its options (resolved to their
 * full names when git's option table is known) and operands. `wholeTree` says whether a pathspec
 * covers the whole project (`.`, `:/`, `*`): discarding or deleting that is critical.
 */
export function gitSubcommandVerdict(
  sub: string,
  rest: readonly string[],
  short: Set<string>,
  long: Set<string>,
  operands: readonly string[],
  wholeTree: (pathspec: string) => boolean = (p) => /^(\.\/?|:\/?|\*|:\(top\).*|:\/\*)$/.test(p),
): Verdict {
  const v = (tier: SafetyTier, reason: string, readOnly = false): Verdict => ({ tier, reason, readOnly });
  const force = short.has("f") || long.has("--force");
  // Any unique prefix git accepts (`--outp=F`, `--ext`) of an option that writes or runs.
  const abbreviates = (a: string, ...names: string[]) => {
    const m = /^--([a-z][a-z0-9-]*)(=|$)/.exec(a);
    return m !== null && names.some((n) => n.startsWith(m[1] as string));
  };
  const writesOutput = rest.some(
    (a) => abbreviates(a, "output") || (/^-o/.test(a) && sub !== "grep" && sub !== "ls-files"),
  );
  const runsProgram = rest.some(
    (a) =>
      abbreviates(a, "upload-pack", "receive-pack", "exec", "ext-diff", "open-files-in-pager") ||
      /^-O/.test(a) ||
      (/^-u/.test(a) && sub === "ls-remote"),
  );
  if (runsProgram) return v("medium", `git ${sub} with an option that runs a program`);
  if (writesOutput && sub !== "grep") return v("medium", `git ${sub} writes its output to a file`);
  const dashDash = rest.indexOf("--");
  const pathspecs = dashDash >= 0 ? rest.slice(dashDash + 1) : operands;
  const everything = pathspecs.some(wholeTree);
  switch (sub) {
    case "reset":
      if (long.has("--hard")) return v("critical", "git reset --hard discards every uncommitted change");
      return long.has("--merge") || long.has("--keep")
        ? v("high", "git reset discards changes")
        : v("medium", "git reset");
    case "clean": {
      if (short.has("n") || long.has("--dry-run")) return v("medium", "git clean --dry-run");
      const untracked = force || short.has("x") || short.has("X") || short.has("d");
      if (untracked && (operands.length === 0 || everything || short.has("x") || short.has("d")))
        return v("critical", "git clean deletes the project's untracked files");
      return untracked ? v("high", "git clean deletes untracked files") : v("medium", "git clean");
    }
    case "push":
      if (
        force ||
        long.has("--force-with-lease") ||
        long.has("--force-if-includes") ||
        long.has("--mirror") ||
        long.has("--delete") ||
        long.has("--prune") ||
        short.has("d") ||
        operands.some((o) => o.startsWith("+") || o.startsWith(":"))
      )
        return v("critical", "git push rewrites or deletes remote history");
      return v("medium", "git push");
    case "checkout":
    case "restore":
    case "switch":
      if (everything || (force && sub !== "restore") || long.has("--discard-changes") || long.has("--orphan"))
        return v("critical", `git ${sub} discards the changes of the whole working tree`);
      if (sub === "switch") return v("medium", "git switch");
      if (force || dashDash >= 0 || long.has("--worktree") || short.has("W") || sub === "restore")
        return v("high", `git ${sub} discards working-tree changes`);
      return v("medium", `git ${sub}`);
    case "rm":
      if (
        !long.has("--cached") &&
        (everything || ((short.has("r") || force) && pathspecs.some((p) => /[*?[]/.test(p))))
      )
        return v("critical", "git rm deletes the project's files");
      return v("medium", "git rm deletes files");
    case "rebase":
      if (long.has("--root")) return v("critical", "git rebase --root rewrites the whole history");
      return v("medium", "git rebase rewrites commits");
    case "read-tree":
      return short.has("u") || long.has("--reset")
        ? v("critical", "git read-tree -u replaces the working tree")
        : v("medium", "git read-tree");
    case "update-ref":
      // Deleting a branch's ref deletes its reflog too: the commits only it reached are lost.
      return short.has("d") || long.has("--stdin")
        ? v("critical", "git update-ref deletes refs and the history only they reach")
        : v("medium", "git update-ref");
    case "branch":
      // `git branch -f main HEAD~10` moves a branch back over its commits.
      if ((force || long.has("--force")) && operands.length > 0)
        return v("high", "git branch -f moves a branch");
      // -D stays high, not critical: the commits of a branch that was checked out are still in
      // HEAD's reflog (git refuses to delete the current branch).
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
      // A stash holds uncommitted work only: dropping it (after `stash -u`, say) loses that work.
      return ["drop", "clear"].includes(operands[0] ?? "")
        ? v("critical", `git stash ${operands[0]} loses stashed work`)
        : operands[0] === "list" || operands[0] === "show"
          ? v("none", `git stash ${operands[0]}`, true)
          : v("medium", "git stash");
    case "worktree":
      // `remove --force` deletes a working tree with its uncommitted and untracked files.
      if (operands[0] === "remove")
        return force || rest.filter((x) => x === "-f" || x === "--force").length > 0
          ? v("critical", "git worktree remove --force deletes a working tree and its uncommitted work")
          : v("high", "git worktree remove deletes a working tree");
      return operands[0] === "list"
        ? v("none", "git worktree list", true)
        : v("medium", `git worktree ${operands[0] ?? ""}`);
    case "filter-branch":
    case "filter-repo":
      return v("critical", `git ${sub} rewrites the whole history`);
    case "reflog":
      // The reflog is what brings back a reset, a rebase or a deleted branch.
      return ["expire", "delete"].includes(operands[0] ?? "")
        ? v("critical", "git reflog expire deletes the record that recovers lost commits")
        : v("none", "git reflog", true);
    case "gc":
      return rest.some((a) => /^--prune=(now|all)$/.test(a))
        ? v("critical", "git gc --prune=now drops every unreachable commit")
        : v("high", "git gc can drop unreachable commits");
    case "prune":
      // Without --expire, every unreachable object goes, whatever its age.
      return v("critical", "git prune drops every unreachable commit");
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
