/** The line both scripts print once the project is read: what follows works on git's index and objects alone. */
export const STAGED_LINE = "staged";

/** Both scripts' staging of the project into `$GIT_INDEX_FILE`, code-running files included. */
const STAGE_PROJECT = `  git $GIT_ISOLATION add --all --ignore-errors -- .
  status=$?
  # 1: some files could not be read and were left out; anything else is fatal.
  [ "$status" -le 1 ] || exit "$status"
  # Code-running files are staged though ignored ($CODE_RUNNING: top-level names without spaces).
  if [ -n "\${CODE_RUNNING:-}" ]; then
    git $GIT_ISOLATION add -f --all --ignore-errors -- $CODE_RUNNING || [ $? -le 1 ] || exit 1
  fi`;

/**
 * Snapshotting in one process: stage the project (on the index `$GIT_INDEX_FILE`, private to the
 * run), write its tree, and commit it on `$REF` unless the newest checkpoint already has that tree
 * (and `$FORCE` is empty). Once staged it prints `staged` (STAGED_LINE): the project may change
 * from then on. With `$TREE` set, nothing is staged: that tree is committed, as a retry does. The
 * newest checkpoint is `$LAST` (`<commit> <tree>`) when the caller knows it, else read. The ref
 * moves by compare-and-swap (and is checked when nothing is committed), so a snapshot racing
 * another process's, or made from a stale `$LAST`, is reported ("raced", with the tree to commit
 * again) rather than lost. The commit message comes on stdin. Output: `new <commit> <tree>`,
 * `same <commit> <tree>` (then the commit's message when it is not `$KNOWN_HEAD`, the one the
 * caller already has), or `raced <tree>`.
 */
export const SNAPSHOT_SCRIPT = `
if [ -n "\${TREE:-}" ]; then
  tree=$TREE
else
${STAGE_PROJECT}
  echo ${STAGED_LINE}
  tree=$(git $GIT_ISOLATION write-tree) || exit 1
fi
if [ -n "\${LAST:-}" ]; then
  last=$LAST
else
  last=$(git $GIT_ISOLATION log -1 --format='%H %T' "$REF" -- 2>/dev/null)
fi
last_commit=\${last%% *}
if [ -z "$FORCE" ] && [ -n "$last" ] && [ "\${last#* }" = "$tree" ]; then
  if [ -n "\${LAST:-}" ] && [ "$(git $GIT_ISOLATION rev-parse -q --verify "$REF" 2>/dev/null)" != "$last_commit" ]; then
    echo "raced $tree"
    exit 0
  fi
  echo "same $last_commit $tree"
  [ "$last_commit" = "$KNOWN_HEAD" ] || git $GIT_ISOLATION log -1 --format=%B "$last_commit" --
  exit 0
fi
commit=$(git $GIT_ISOLATION commit-tree "$tree" \${last_commit:+-p "$last_commit"} -F -) || exit 1
if git $GIT_ISOLATION update-ref "$REF" "$commit" "$last_commit" 2>/dev/null; then
  echo "new $commit $tree"
else
  echo "raced $tree"
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
  /** Another process moved the ref meanwhile: `tree` is to be committed again, not staged again. */
  | { readonly kind: "raced"; readonly tree: string };

/** Reads the script's output; throws on output it cannot have printed. */
export function parseSnapshotOutput(stdout: string): SnapshotOutcome {
  const newline = stdout.indexOf("\n");
  const first = (newline < 0 ? stdout : stdout.slice(0, newline)).trim();
  const [kind, id, tree] = first.split(" ");
  if (kind === "raced" && id && tree === undefined) return { kind, tree: id };
  if ((kind === "new" || kind === "same") && id && tree) {
    const rest = newline < 0 ? "" : stdout.slice(newline + 1);
    if (kind === "same" && rest !== "") return { kind, id, tree, body: rest };
    return { kind, id, tree };
  }
  throw new Error(`unexpected snapshot output: ${JSON.stringify(stdout.slice(0, 200))}`);
}

/**
 * Stages the project as it is now, then writes the trees of background checkpoints over it and
 * commits them, in one process, on an index of its own in `$DIR` (which must be on the file system
 * of `$GIT_DIR`). When the file `$NEWER` (if set) exists once staging is done, a change was
 * recorded while git read the tree: nothing is written and the output is `again`. In `$DIR`, per
 * checkpoint k (1 to `$COUNT`, oldest first): `tree-k`, a directory holding the prior contents it
 * recorded at their project paths; `paths-k`, every path it recorded (NUL-separated; one absent
 * from `tree-k` did not exist); `msg-k`, its message. Also `check`, the recorded paths that
 * existed (NUL-separated), of which those the project ignores are left out, as staging leaves
 * them out. Checkpoint k's tree is the staged project with the prior states of checkpoints
 * k..COUNT laid over it, the oldest winning, so they are applied newest first. Each checkpoint is
 * then committed unless its tree equals the one before it and `$FORCE_k` is empty, and `$REF`
 * moves by compare-and-swap from the newest checkpoint: `$LAST` (`<commit> <tree>`) when the
 * caller knows it, else read here (and checked when nothing is committed). `$DIR/index` is the
 * index staged into: the caller seeds it from the shared one (a cache of file stats) and puts it
 * back when the output is not `raced` or `again` (entries laid over are refreshed by the next
 * staging: their stats differ). Once the project is read (staged, and the recorded paths checked
 * against its .gitignore files) it prints `staged` (STAGED_LINE): the project may change from
 * then on. With `$TREES` set (the trees of checkpoints 1 to COUNT, space-separated), nothing is
 * staged: those trees are committed, as a retry does. Output: one line per checkpoint,
 * `<commit> <tree>`, then `head <commit>` (the ref before, possibly empty), or `raced` when
 * another process moved the ref meanwhile, or `$LAST` was stale (the trees to commit again are on
 * the lines before).
 */
export const OVERLAY_SCRIPT = `
# An index of its own: another process staging into the shared one between our commands would
# undo our overlays.
GIT_INDEX_FILE="$DIR/index"
export GIT_INDEX_FILE
if [ -n "\${TREES:-}" ]; then
  k=1
  for tree in $TREES; do
    eval "tree_$k=$tree"
    k=$((k+1))
  done
else
${STAGE_PROJECT}
  if [ -n "\${NEWER:-}" ] && [ -e "$NEWER" ]; then
    echo again
    exit 0
  fi
  set -e
  : > "$DIR/ignored"
  # Reads the project's .gitignore files: done before the project may change.
  if [ -s "$DIR/check" ]; then
    git $GIT_ISOLATION check-ignore --no-index -z --stdin < "$DIR/check" > "$DIR/ignored" || [ $? -eq 1 ]
  fi
  echo ${STAGED_LINE}
  k=$COUNT
  while [ "$k" -ge 1 ]; do
    if [ -s "$DIR/paths-$k" ]; then
      # Present in tree-k: its prior content is stored and staged; absent: it did not exist.
      GIT_WORK_TREE="$DIR/tree-$k" git $GIT_ISOLATION update-index -z --add --remove --stdin < "$DIR/paths-$k"
      [ ! -s "$DIR/ignored" ] || git $GIT_ISOLATION update-index -z --force-remove --stdin < "$DIR/ignored"
    fi
    tree=$(git $GIT_ISOLATION write-tree)
    eval "tree_$k=$tree"
    k=$((k-1))
  done
fi
set -e
if [ -n "\${LAST:-}" ]; then
  head=$LAST
else
  head=$(git $GIT_ISOLATION log -1 --format='%H %T' "$REF" -- 2>/dev/null || true)
fi
last=\${head%% *}
last_tree=\${head#* }
parent=$last
k=1
while [ "$k" -le "$COUNT" ]; do
  eval "tree=\\$tree_$k"
  eval "force=\\\${FORCE_$k:-}"
  if [ -n "$force" ] || [ -z "$parent" ] || [ "$tree" != "$last_tree" ]; then
    parent=$(git $GIT_ISOLATION commit-tree "$tree" \${parent:+-p "$parent"} -F "$DIR/msg-$k")
    last_tree=$tree
  fi
  echo "$parent $tree"
  k=$((k+1))
done
if [ "$parent" = "$last" ]; then
  if [ -n "\${LAST:-}" ] && [ "$(git $GIT_ISOLATION rev-parse -q --verify "$REF" 2>/dev/null)" != "$last" ]; then
    echo raced
  else
    echo "head $last"
  fi
elif git $GIT_ISOLATION update-ref "$REF" "$parent" "$last" 2>/dev/null; then
  echo "head $last"
else
  echo raced
fi
`;
