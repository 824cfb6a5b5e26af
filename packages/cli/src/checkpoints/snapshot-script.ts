/**
 * Snapshotting in one process: stage the project, write its tree, and commit it on `$REF` unless
 * the newest checkpoint already has that tree (and `$FORCE` is empty). The ref moves by compare-and-swap, so a snapshot
 * racing another process's is reported ("raced") rather than lost. The commit message comes on
 * stdin. Output: `new <commit> <tree>`, `same <commit> <tree>` (then the commit's message when
 * it is not `$KNOWN_HEAD`, the one the caller already has), or `raced`.
 */
export const SNAPSHOT_SCRIPT = `
git $GIT_ISOLATION add --all --ignore-errors -- .
status=$?
# 1: some files could not be read and were left out; anything else is fatal.
[ "$status" -le 1 ] || exit "$status"
tree=$(git $GIT_ISOLATION write-tree) || exit 1
last=$(git $GIT_ISOLATION log -1 --format='%H %T' "$REF" -- 2>/dev/null)
last_commit=\${last%% *}
if [ -z "$FORCE" ] && [ -n "$last" ] && [ "\${last#* }" = "$tree" ]; then
  echo "same $last_commit $tree"
  [ "$last_commit" = "$KNOWN_HEAD" ] || git $GIT_ISOLATION log -1 --format=%B "$last_commit" --
  exit 0
fi
commit=$(git $GIT_ISOLATION commit-tree "$tree" \${last_commit:+-p "$last_commit"} -F -) || exit 1
if git $GIT_ISOLATION update-ref "$REF" "$commit" "$last_commit" 2>/dev/null; then
  echo "new $commit $tree"
else
  echo raced
fi
`;

/** What the snapshot script did. */
export type SnapshotOutcome =
  | { readonly kind: "new"; readonly id: string; readonly tree: string }
  | {
      readonly kind: "same";
      readonly id: string;
      readonly tree: string;
      /** The commit's message, unless it is the head the caller named. */
      readonly body?: string;
    }
  | { readonly kind: "raced" };

/** Reads the script's output; throws on output it cannot have printed. */
export function parseSnapshotOutput(stdout: string): SnapshotOutcome {
  const newline = stdout.indexOf("\n");
  const first = (newline < 0 ? stdout : stdout.slice(0, newline)).trim();
  if (first === "raced") return { kind: "raced" };
  const [kind, id, tree] = first.split(" ");
  if ((kind === "new" || kind === "same") && id && tree) {
    const rest = newline < 0 ? "" : stdout.slice(newline + 1);
    if (kind === "same" && rest !== "") return { kind, id, tree, body: rest };
    return { kind, id, tree };
  }
  throw new Error(`unexpected snapshot output: ${JSON.stringify(stdout.slice(0, 200))}`);
}
