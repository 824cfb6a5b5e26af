// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the rows are shell lines, where ${…} is shell syntax
// The attack suite of issue 27's classes 1 and 2, beyond the issue's own examples: lines that write
// or run code while looking read-only (normal mode, where no sandbox may run), and lines that wipe
// the project, rewrite its history or force-push (critical: they ask in yolo too). Property tests
// generate every unique abbreviation and every attached or clustered form of each option the
// option tables mark as writing, running code or reading other processes' data.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assessCommandLine,
  createPermissionPolicy,
  loadBashParser,
  type PermissionPolicy,
} from "../src/permissions/index.js";
import { longCandidates, type OptionSpec, type ProgramOptions } from "../src/permissions/option-parser.js";
import { allProgramOptions } from "../src/permissions/program-options.js";

/** Class 2: each writes a file, runs code or reads another process's data; normal mode must not run it unasked. */
const NOT_READ_ONLY: readonly string[] = [
  "git grep --open-files-in-pager='touch x' foo",
  "git grep --open='touch x' foo",
  "git grep -Otouch foo",
  "git grep -O'touch x' foo",
  "git grep -iO'touch x' foo",
  "git grep -nO foo",
  "git diff --ext-diff",
  "git diff --ext",
  "git log --ext-diff -p",
  "git show --output=F",
  "git log --out=F",
  "git diff --no-index --output F src/a.ts src/a.ts",
  "git --no-pager log -p --ext-diff",
  "git -c core.pager='touch x' log",
  "git --config-env=core.pager=X log",
  "git -c diff.external=x diff",
  "sort -o F src/a.ts",
  "sort -oF src/a.ts",
  "sort -uoF src/a.ts",
  "sort -u -o F src/a.ts",
  "sort --output F src/a.ts",
  "sort --o=F src/a.ts",
  "sort --compress-program=sh src/a.ts",
  "sort --compress=sh src/a.ts",
  "sort src/a.ts --outpu=F",
  "sed -i s/a/b/ src/a.ts",
  "sed -ni p src/a.ts",
  "sed -in p src/a.ts",
  "sed --in-place=.bak s/a/b/ src/a.ts",
  "sed --in=.b s/a/b/ src/a.ts",
  "sed -e 'w out' src/a.ts",
  "sed -e's/x/y/w out' src/a.ts",
  "sed --expression='e touch x' src/a.ts",
  "sed -E -e '1e touch x' src/a.ts",
  "sed -f script.sed src/a.ts",
  "sed --file=script.sed src/a.ts",
  "sed -nf script.sed src/a.ts",
  "sed 's/x/y/e' src/a.ts",
  "sed -n -e p -e '$e touch x' src/a.ts",
  "sed --ex='1e touch x' src/a.ts",
  "env --split-string='touch x'",
  "env -S'touch x'",
  "env -iS'touch x'",
  "env --sp='touch x'",
  "env -u HOME --split-s='touch x'",
  "awk -o out '{print}' src/a.ts",
  "gawk --profile=out 'BEGIN{}'",
  "gawk -p 'BEGIN{}'",
  "gawk --dump-variables 'BEGIN{}'",
  "gawk -dvars.out 'BEGIN{}'",
  "awk -f prog.awk src/a.ts",
  "awk --exec=prog.awk",
  "gawk -E prog.awk",
  "awk 'BEGIN{print > \"x\"}'",
  "awk 'BEGIN{\"date\" | getline}'",
  "awk -e 'BEGIN{system(\"touch x\")}'",
  "gawk -l ./ext.so 'BEGIN{}'",
  "gawk -i inc 'BEGIN{}'",
  "gawk --pretty=out 'BEGIN{}'",
  "iconv -o F src/a.ts",
  "iconv --output=F src/a.ts",
  "iconv --out F src/a.ts",
  "iconv -co F src/a.ts",
  "iconv -f utf8 -oF src/a.ts",
  "yq -i '.a=1' x.yaml",
  "yq --inplace '.a=1' x.yaml",
  "yq -s '.a' x.yaml",
  "yq --split-exp=.a x.yaml",
  "yq -Pi '.a=1' x.yaml",
  "tree -o F",
  "tree -ao F",
  "tree --output=F",
  "file -C -m magic",
  "file --compile -m magic",
  "base64 -o F src/a.ts",
  "base64 --output F src/a.ts",
  "rg --pre=cat x",
  "rg --pre cat x",
  "rg --pr=cat x",
  "rg -z x",
  "rg -iz x",
  "rg --search-zip x",
  "rg --hostname-bin=touch x",
  "fd -x touch",
  "fd --exec touch",
  "fd -X rm",
  "fd --exec-batch rm",
  "fd -HX rm",
  "fdfind -x rm",
  "fd --exe touch",
  "bat --pager='touch x' src/a.ts",
  "bat --pag='touch x' src/a.ts",
  "ag --pager='touch x' foo",
  "ack --pager='touch x' foo",
  "ack --output='`touch x`' foo",
  "tee F",
  "tee -a F",
  "echo x | tee >(sh)",
  "less src/a.ts",
  "more src/a.ts",
  "man -P touch ls",
  "man --pager=touch ls",
  "vim -c '!touch x' src/a.ts",
  "view src/a.ts",
  "find . -fprint F",
  "find . -fprintf F x",
  "find . -fls F",
  "find . -exec touch {} \\;",
  "find . -execdir sh -c 'touch x' \\;",
  "find . -ok rm {} \\;",
  "dd of=F if=src/a.ts",
  "cp src/a.ts b",
  "xargs sh -c 'touch x'",
  "echo a | xargs -I{} sh -c 'rm {}'",
  "sh <<EOF",
  "bash <<< 'touch x'",
  "eval 'touch x'",
  "source ./x.sh",
  ". ./x.sh",
  "command touch x",
  "builtin eval 'touch x'",
  "exec touch x",
  "cat <(touch x)",
  "diff <(touch x) src/a.ts",
  "echo $(touch x)",
  'ls "$(touch x)"',
  "cat `touch x`",
  "ls {a,b}$(touch x)",
  "hash -p /usr/bin/touch cat",
  "hash -p./x ls",
  "hash -dp ./x ls",
  "alias ls='touch x'",
  "enable -f ./x.so cat",
  "enable -n echo",
  "read -r PAGER <<< x; git log",
  "mapfile -t LD_PRELOAD < src/a.ts",
  "readarray BASH_ENV < src/a.ts",
  "printf -v GIT_DIR x",
  "declare PAGER",
  "export GIT_SSH_COMMAND",
  "local EDITOR",
  "typeset -x LESSOPEN",
  "getopts ab PATH",
  "read IFS",
  "declare -x MANPAGER",
  "set -a; read LESSOPEN",
  "read -a GIT_CONFIG_PARAMETERS",
  "read -d '' GIT_EXTERNAL_DIFF",
  "sort --files0-from=<(printf '%s\\0' /etc/passwd)",
  "wc --files0-from=list",
  "du --files0-from=F",
  "file -f list",
  "grep -f /etc/passwd src/a.ts",
  "grep --file=/etc/passwd src/a.ts",
  "ps eww -A",
  "ps -E",
  "ps -axE",
  "ps -Eo pid,command",
  "ps e",
  "ps axe",
  "ps auxe",
  "ps -A e",
  "ps -ef e",
  "ps aeww",
  "ps -o pid e",
  "ps ewwo pid,args",
  "cat /proc/self/environ",
  "strings /proc/1/environ",
  "diff --from-file=/etc/passwd src/a.ts",
  "gunzip f.gz",
  "date -s 2020-01-01",
  "date --set=2020-01-01",
  "date --se=2020-01-01",
  "head --lines=5 /etc/shadow",
  "xxd src/a.ts out",
  "uniq src/a.ts out",
  "time sort -o F src/a.ts",
  "nice sort -oF src/a.ts",
  "timeout 5 sed -i s/a/b/ src/a.ts",
  "cat src/a.ts | sh",
  'sh -c "$(cat src/a.ts)"',
  "env PAGER='touch x' git log",
  "GIT_PAGER=x git log",
  'export PAGER="touch x"; git log',
  "git grep -O foo",
  "git blame --contents=/etc/passwd src/a.ts",
  "jq --rawfile a /etc/passwd . src/a.ts",
  "sort --random-source=/etc/passwd src/a.ts",
  "git log --format=%H | xargs -n1 git show --output=F",
  "LESSOPEN='|touch x %s' less src/a.ts",
  "git diff --output=/dev/stdout",
  "sort -mo F src/a.ts",
  "sort --output=/dev/null src/a.ts",
  "cat src/a.ts | sort -o src/a.ts",
  "git diff --textconv --ext-d",
  "uniq -c src/a.ts out",
  "time -o F ls",
  "/usr/bin/time --output=F ls",
  "/usr/bin/time --out=F ls",
  "/usr/bin/time -aoF ls",
  "flock F ls",
  "git stash show --outp=F",
  "git reflog show --output=F",
  "git stash show --ext",
  "ps -auxe",
  "awk '@load \"x\"; BEGIN{}'",
  "GCONV_PATH=. iconv -f x -t y src/a.ts",
  "BAT_PAGER='touch x' bat src/a.ts",
  "set -a; for GIT_EXTERNAL_DIFF in 'touch x'; do git diff; done",
  "set -a; : ${GIT_EXTERNAL_DIFF:='touch x'}; git diff",
  ": ${PAGER=touch}; export PAGER; git log",
  "select PAGER in x; do git log; done",
  "tar -cf /dev/null --to-command='touch x' src",
  "git -c alias.x='!touch y' x",
  "fd --base-directory=$(printf /etc) .",
  'fd --search-path "$(printf /etc)" x',
  "grep -r foo --include=x $(printf /etc)",
  "cat $(printf '/etc/%s' passwd)",
  "diff <(cat /etc/passwd) src/a.ts",
  "xargs -a <(printf '/etc/passwd') cat",
  "xargs cat < <(printf '/etc/passwd')",
  "wc --files0-from=<(printf '/etc/passwd\\0')",
  "du --files0-from=<(printf '/etc\\0')",
  "find -files0-from <(printf '/etc\\0') -name passwd",
  "rg --ignore-file=$(printf /etc/passwd) foo",
  'sort -T "$(printf /tmp)" --random-source=$(printf /etc/shadow) src/a.ts',
  "head -n $(cat /etc/passwd | wc -l) src/a.ts",
  "git diff --no-index $(printf /etc/passwd) src/a.ts",
  "git log --format=%H --output=$(printf F)",
  "ls -la $(printf /root)",
  "tree $(printf /etc)",
  "stat --format=%n $(printf /etc/shadow)",
  "jq . $(printf /etc/x.json)",
  "awk '{print}' $(printf /etc/passwd)",
  "sed -n p $(printf /etc/passwd)",
];

/** Class 1: each deletes, empties or moves away the project's files in bulk, or rewrites history: critical. */
const CRITICAL_IN_YOLO: readonly string[] = [
  // History that only a deleted ref, a reflog or unreachable objects still hold.
  "git update-ref -d HEAD",
  "git update-ref -d refs/heads/main",
  "git update-ref --stdin",
  "git reflog expire --expire=now --all",
  "git reflog delete HEAD@{1}",
  "git gc --prune=now",
  "git gc --prune=all --aggressive",
  "git prune",
  "git worktree remove --force ../other",
  "git worktree remove -f .",
  // Wrappers and spellings around a wipe.
  "timeout 5 rm -rf .",
  "nice -n 5 rm -rf .",
  "nohup rm -rf . &",
  "stdbuf -o0 rm -rf .",
  "ionice -c3 rm -rf .",
  "chronic rm -rf .",
  "command -p rm -rf .",
  "builtin command rm -rf .",
  "\\rm -rf .",
  '"r"m -rf .',
  "$'\\x72m' -rf .",
  "{rm,-rf,.}",
  "x=rm; $x -rf .",
  "IFS=,; a=rm,-rf,.; $a",
  "cd .. && rm -rf ./project",
  'cd /tmp && rm -rf "$OLDPWD"',
  "rm -rf $(pwd)",
  "shopt -s globstar; truncate -s0 **/*.ts",
  'for f in $(git ls-files); do rm "$f"; done',
  'while read f; do rm "$f"; done < <(git ls-files)',
  'git ls-files | while read f; do rm "$f"; done',
  "git ls-files -z | xargs -0 rm -f",
  // In-place editors run by find over the project root rewrite .git's objects too.
  "find . -type f -exec sed -i d {} +",
  "find . -type f -exec sed --in-place 's/a/b/' {} \\;",
  "find . -exec perl -pi -e 's/.*//' {} +",
  "tar --remove-files -cf /dev/null .",
  "tar --remove -czf /tmp/a.tgz .",
  "tar cf /dev/null --remove-files *",
  "tar --remove-files -cf /tmp/x.tar ./",
  "tar --remove-fi -cf /tmp/x.tar .",
  "zip -qrm /tmp/x.zip .",
  "zip -rm /tmp/x .",
  "zip --move -r /tmp/x .",
  "zip -r -m /tmp/x *",
  "zip -mr x.zip ./",
  "find . -type f -exec rm -f {} +",
  "find . -type f -exec rm {} \\;",
  "find . -exec shred -u {} +",
  "find . -type f -execdir rm {} \\;",
  "find . -type f -ok rm {} \\;",
  "find . -mindepth 1 -exec rm -rf {} +",
  "find . -type f -exec mv {} /tmp \\;",
  "find . -name '*.ts' -delete",
  "find . -name '*.js' -exec truncate -s 0 {} +",
  "find . -type f -exec sh -c 'rm \"$1\"' _ {} \\;",
  "find . -type f -exec sh -c ': > \"$1\"' _ {} \\;",
  "find . -not -name x -delete",
  "find . -name '*.o' -o -name '*.c' -delete",
  "find ./ -type f -delete",
  'find "$PWD" -type f -delete',
  "find . -type f -print0 | xargs -0 truncate -s0",
  "find . -type f -exec unlink {} \\;",
  "find . -type f -exec bash -c 'for f; do rm \"$f\"; done' _ {} +",
  "find src/.. -type f -delete",
  "rm -f $(find . -type f)",
  "rm -rf $(ls)",
  "rm $(git ls-files)",
  "rm -f `find . -name '*.ts'`",
  "shred -u $(find . -type f)",
  "truncate -s 0 $(git ls-files)",
  "find . -print0 | xargs -0 rm -f",
  "git ls-files | xargs rm",
  "ls | xargs rm -f",
  "git ls-files -z | xargs -0 shred -u",
  "find . | xargs -I{} rm {}",
  "ls | parallel rm",
  "find . -type f | xargs -n1 truncate -s0",
  "xargs -a list rm",
  "git ls-files | xargs -d '\\n' mv -t /tmp",
  "git rm -rqf .",
  "git rm -r --quiet -f -- .",
  "git rm -rf '*'",
  "git rm -r :/",
  "git rm -r ./",
  "rsync -a --delete /tmp/empty/ ./",
  "rsync --remove-source-files -a ./ /tmp/x",
  "rsync -a --del /tmp/empty/ .",
  "rsync -a --delete-after /tmp/empty/ .",
  "mv ./* /tmp",
  "mv * /tmp/x",
  "mv . /tmp/x",
  "shred -u *",
  "shred -zu ./*",
  "truncate -s0 *",
  "truncate -s 0 ./*.ts",
  "rm -f *",
  "rm -f ./*.ts",
  "git filter-branch --tree-filter 'rm -rf src' HEAD",
  "git filter-repo --path src --invert-paths",
  "git rebase --root",
  "git rebase -i --root",
  "git push -f",
  "git push --force",
  "git push --forc",
  "git push --force-w",
  "git push origin +main",
  "git push --mirror",
  "git push origin :main",
  "git push --delete origin main",
  "git push -uf origin main",
  "git push --force-if-includes --force-with-lease",
  "git clean -fdx",
  "git clean -ffd",
  "git clean -fX",
  "git clean -xf",
  "git clean -f",
  "git checkout -- .",
  "git checkout .",
  "git checkout -f",
  "git restore .",
  "git restore --staged --worktree .",
  "git restore -W :/",
  "git reset --hard",
  "git reset --hard HEAD~5",
  "git switch -f main",
  "git switch --discard-changes main",
  "git checkout -f HEAD -- .",
  "sudo find . -delete",
  "bash -c 'find . -type f -exec rm {} +'",
  'eval "git push -f"',
  "sh <<< 'rm -f $(find . -type f)'",
  "cd src && rm -f $(find .. -type f)",
  'for f in $(git ls-files); do rm "$f"; done',
  'git ls-files | while read f; do rm "$f"; done',
  "find . -type f -exec cp /dev/null {} \\;",
  "find . -type f -exec dd if=/dev/null of={} \\;",
  "parallel 'rm {}' ::: src/*.o",
  "git stash -u && git stash drop",
  "git stash clear",
  "git read-tree -u --reset 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
  "git switch --orphan x",
  "git checkout --orphan x && git rm -rf .",
  "rm -rf .git/objects",
  "rm -rf .git/refs/heads",
  "find .git -type f -delete",
  "mv --target-directory=/tmp ./*",
  "mv -t ../moved ./*",
  "7z a -sdel /tmp/x.7z .",
  "gzip -r .",
  "gzip *",
  "bzip2 ./*",
  "find . -type f -exec gzip {} +",
  "git ls-files | xargs gzip",
  "srm -r .",
  "wipe -rf .",
  "fd -x rm",
  "fd -t f -X rm -f",
  "fdfind . -x shred -u",
  "git checkout -- '*'",
  "git restore --source=HEAD~10 -- .",
  "git restore -s HEAD~ :/",
  "find . -depth -delete",
  "find . -mindepth 1 -delete",
  "find * -delete",
  "ls | xargs -n1 -I% mv % /tmp",
  'for f in *; do rm -rf "$f"; done',
  "printf '%s\\0' * | xargs -0 rm -rf",
  "echo * | xargs rm",
  'rm -rf -- "$(pwd)"/*',
  "cd .. && rm -rf project",
  "truncate -s 0 **/*.ts",
  "find . -type f -newer x -exec rm {} +",
  "find . -name '*.*' -delete",
  "find . -iname '*.JS' -delete",
  "find . -regex '.*\\.ts' -delete",
  "rsync -a --delete-before /tmp/empty/ ./",
  "rsync -a --delete-excluded /tmp/empty/ ./",
  "shred -n1 -u -z src/*",
  "git filter-repo --force --invert-paths --path src",
  "git push origin main --force-with-lease=main:abc",
  "git push origin main:main -f",
  "git push origin --all --prune",
  "git reset --hard origin/main",
  "git checkout main -f",
  "sudo git clean -ffdx",
  "env git push -f",
  "command rm -f $(git ls-files)",
  "nohup find . -type f -delete",
  "timeout 10 git reset --hard",
  "bash -c 'git stash -u; git stash drop'",
  "git -C . clean -fdx",
  "git --git-dir=.git --work-tree=. checkout -- .",
  "find -L . -type f -delete",
  "find ./ -xdev -type f -exec rm {} \\;",
];

/** Everyday read-only lines that must keep running unasked: the suite does not pass by asking everything. */
const STILL_READ_ONLY: readonly string[] = [
  "sort -n src/a.ts",
  "sort -k2,2 -t, src/a.ts",
  "sort -u -r src/a.ts",
  "sed -n 1p src/a.ts",
  "sed -ne '1,5p' src/a.ts",
  "sed -E 's/a/b/g' src/a.ts",
  "git grep -n foo",
  "git diff --stat",
  "git log --oneline",
  "rg -n foo",
  "rg -i -g '*.ts' foo",
  "grep -rn foo src",
  "ps aux",
  "ps -ef",
  "ps -e",
  "env",
  "awk -F, '{print $1}' src/a.ts",
  "tree -L 2",
  "iconv -f utf8 -t ascii src/a.ts",
  "yq '.a' x.yaml",
  "jq -r .a x.json",
  "head -n5 src/a.ts",
  "head -5 src/a.ts",
  "wc -l src/a.ts",
  "ls -la",
  "du -sh src",
  "file src/a.ts",
  "base64 src/a.ts",
  "date +%s",
  "uniq -c src/a.ts",
  "cut -d: -f1 src/a.ts",
  "tail -f -n 20 src/a.ts",
  "git show HEAD --stat --format=%H",
  "git diff --name-only HEAD~3",
  "git log -S foo --oneline",
  "git log -G'foo.*bar' -p",
  "git diff -U10 src/a.ts",
  "grep -c foo src/a.ts",
  "grep -E 'a|b' -o src/a.ts",
  "rg --files -g '*.ts'",
  "rg -l foo src",
  "read -r line < src/a.ts",
  "export NODE_ENV=test",
  "echo $HOME",
  "printenv HOME",
  "which git",
  "fd -e ts",
  "bat -n src/a.ts",
  "git log --pretty=format:'%h %s' --since=2.weeks",
  "git diff --word-diff",
  "git log --first-parent --no-merges",
  "od -c src/a.ts",
];

let dir: string;
let root: string;
let normal: PermissionPolicy;
let yolo: PermissionPolicy;

beforeAll(async () => {
  await loadBashParser();
  dir = await mkdtemp(join(tmpdir(), "attractor-attack-suite-"));
  root = join(dir, "project");
  await mkdir(join(root, "src"), { recursive: true });
  await writeFile(join(root, "src", "a.ts"), "export {};\n");
  await writeFile(join(root, "package.json"), "{}\n");
  normal = createPermissionPolicy({ mode: "normal", projectRoot: root });
  yolo = createPermissionPolicy({ mode: "yolo", projectRoot: root });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const shell = (command: string) => ({ callId: `a${n++}`, toolName: "shell", arguments: { command } });

describe("class 2: lines that look read-only but write or run code ask in normal mode", () => {
  for (const line of NOT_READ_ONLY) {
    it(JSON.stringify(line), async () => {
      const outcome = await normal.evaluate(shell(line));
      expect(outcome.behavior).not.toBe("allow");
    });
  }
});

describe("class 1: bulk wipes, history rewrites and force pushes ask in yolo", () => {
  for (const line of CRITICAL_IN_YOLO) {
    it(JSON.stringify(line), async () => {
      const outcome = await yolo.evaluate(shell(line));
      expect(outcome.behavior).not.toBe("allow");
      if (outcome.behavior === "ask") expect(outcome.request.canAllowAlways).toBe(false);
    });
  }
});

/** Narrow deletions and keeping compressors: they run in yolo (after a checkpoint) without asking. */
const NOT_CRITICAL: readonly string[] = [
  "rm .git/index.lock",
  "gzip -k src/a.ts",
  "gzip -c src/a.ts",
  "gzip src/a.ts",
  "find . -name '*.o' -delete",
  "rm *.o",
  "git stash list",
  "git stash",
  "mv src/a.ts src/b.ts",
  "fd -e ts -x wc -l",
];

describe("narrow deletions are not critical: yolo runs them", () => {
  for (const line of NOT_CRITICAL) {
    it(JSON.stringify(line), async () => {
      expect((await yolo.evaluate(shell(line))).behavior).toBe("allow");
    });
  }
});

describe("everyday read-only lines still run unasked", () => {
  for (const line of STILL_READ_ONLY) {
    it(JSON.stringify(line), async () => {
      expect((await normal.evaluate(shell(line))).behavior).toBe("allow");
    });
  }
});

describe("a wildcard allow rule covers arguments, never an option that writes or runs", () => {
  const rows: readonly (readonly [rule: string, line: string, expected: "allow" | "ask"])[] = [
    ["Bash(git diff:*)", "git diff HEAD~1 -- src/a.ts", "allow"],
    ["Bash(git diff:*)", "git diff --output=F", "ask"],
    ["Bash(git diff:*)", "git diff --outp=F", "ask"],
    ["Bash(git diff:*)", "git diff --ext-diff HEAD", "ask"],
    ["Bash(git diff:*)", "git diff --ext HEAD", "ask"],
    ["Bash(git log:*)", "git log --output=F", "ask"],
    ["Bash(git grep:*)", "git grep -O'touch x' foo", "ask"],
    ["Bash(git grep:*)", "git grep --open-files='touch x' foo", "ask"],
    ["Bash(sort:*)", "sort --outp=F src/a.ts", "ask"],
    ["Bash(sort:*)", "sort -uoF src/a.ts", "ask"],
    ["Bash(sed:*)", "sed -i s/a/b/ src/a.ts", "ask"],
    ["Bash(rg:*)", "rg --pre=cat foo", "ask"],
    ["Bash(fd:*)", "fd -x touch", "ask"],
    ["Bash(find:*)", "find . -fprint F", "ask"],
    ["shell(git diff --output=F)", "git diff --output=F", "allow"],
    ["Bash(awk:*)", "awk '{print $1}' src/a.ts", "allow"],
    ["Bash(awk:*)", "awk 'BEGIN{system(\"touch x\")}'", "ask"],
    ["Bash(sed:*)", "sed -n 1p src/a.ts", "allow"],
    ["Bash(sed -i:*)", "sed -i s/a/b/ src/a.ts", "allow"],
    ["Bash(find:*)", "find . -name '*.o' -delete", "ask"],
    ["Bash(find:*)", "find . -name x -exec touch {} +", "ask"],
    ["Bash(tee:*)", "echo x | tee F", "ask"],
  ];
  for (const [rule, line, expected] of rows) {
    it(`${rule}: ${JSON.stringify(line)}`, async () => {
      const p = createPermissionPolicy({ mode: "normal", projectRoot: root, rules: { allow: [rule] } });
      expect((await p.evaluate(shell(line))).behavior).toBe(expected);
    });
  }
});

describe("always allow remembers an option that writes or runs exactly, never as a wildcard", () => {
  for (const [line, rule] of [
    ["git diff --output=F", "shell(git diff --output=F)"],
    ["sort -o F src/a.ts", "shell(sort -o F src/a.ts)"],
    ["git commit -m done", "shell(git commit:*)"],
  ] as const) {
    it(JSON.stringify(line), async () => {
      const outcome = await normal.evaluate(shell(line));
      expect(outcome.behavior).toBe("ask");
      if (outcome.behavior === "ask") expect(outcome.request.alwaysRules).toEqual([rule]);
    });
  }
});

/** A line that runs `program` with `option` and is otherwise read-only. */
function lineWith(table: ProgramOptions, option: string): string {
  const [program, sub] = table.program.split(" ");
  const head = sub ? `${program} ${sub}` : program;
  // sed and awk need a script of their own so the option is the only thing the line does.
  if (program === "sed") return `${head} ${option} -e p src/a.ts`;
  if (/awk$/.test(program as string)) return `${head} ${option} -e 1 src/a.ts`;
  return `${head} ${option} src/a.ts`;
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
const EFFECTS = new Set(["write", "exec", "procs"]);

/** Every option a table marks as writing, running or reading other processes, with its table. */
function effectful(): { table: ProgramOptions; name: string; spec: OptionSpec }[] {
  const out: { table: ProgramOptions; name: string; spec: OptionSpec }[] = [];
  for (const table of allProgramOptions()) {
    for (const [name, spec] of table.long)
      if (spec.effect && EFFECTS.has(spec.effect)) out.push({ table, name, spec });
    for (const [name, spec] of table.short)
      if (spec.effect && EFFECTS.has(spec.effect)) out.push({ table, name, spec });
  }
  return out;
}

describe("property: every spelling getopt accepts of an option that writes or runs is caught", () => {
  const judged = (line: string) => assessCommandLine(line, { cwd: root, projectRoot: root });

  it("covers a known set of options (the tables are not empty)", () => {
    const names = effectful().map((e) => `${e.table.program} ${e.spec.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "sort --output",
        "sort -o",
        "git grep --open-files-in-pager",
        "git diff --output",
        "env --split-string",
        "sed -i",
        "rg --pre",
        "fd -x",
        "yq -i",
      ]),
    );
  });

  it("every unique prefix of every long option, with = and as the next word", () => {
    let checked = 0;
    for (const { table, name, spec } of effectful().filter((e) => e.spec.name.startsWith("--"))) {
      for (let len = 1; len <= name.length; len++) {
        const prefix = name.slice(0, len);
        const candidates = longCandidates(table, prefix);
        // Only prefixes getopt resolves to this option alone (ambiguous ones are refused).
        if (candidates.length !== 1 || candidates[0] !== spec) continue;
        const forms =
          spec.value === "none"
            ? [`--${prefix}`]
            : spec.value === "optional"
              ? [`--${prefix}`, `--${prefix}=${quote("touch x")}`]
              : [`--${prefix}=${quote("touch x")}`, `--${prefix} ${quote("touch x")}`];
        for (const form of forms) {
          const line = lineWith(table, form);
          expect(judged(line).readOnly, line).toBe(false);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("short options attached, detached and inside clusters of harmless letters (fast-check)", () => {
    const shorts = effectful().filter((e) => !e.spec.name.startsWith("--"));
    fc.assert(
      fc.property(
        fc.constantFrom(...shorts),
        fc.nat(),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.stringMatching(/^[a-z][a-z0-9._]{0,8}$/),
        ({ table, name, spec }, seed, count, attached, word) => {
          // Not a program's name: `env -S` runs its value, and `env -S w` would be the harmless `w`.
          const value = `x_${word}`;
          // Harmless letters that take no value may come before it in one word (`-uoF`).
          const flags = [...table.short.values()]
            .filter((s) => s.value === "none" && !s.effect)
            .map((s) => s.name.slice(1));
          const before = Array.from(
            { length: flags.length ? count : 0 },
            (_, i) => flags[(seed + i * 7) % flags.length],
          ).join("");
          const option =
            spec.value === "none"
              ? `-${before}${name}`
              : attached || spec.value === "optional"
                ? `-${before}${name}${value}`
                : `-${before}${name} ${value}`;
          const line = lineWith(table, option);
          return judged(line).readOnly === false;
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("options that neither write nor run keep a plain reader read-only (fast-check)", () => {
    const readers = [
      "cat",
      "head",
      "wc",
      "ls",
      "nl",
      "cut",
      "fold",
      "tac",
      "od",
      "stat",
      "du",
      "realpath",
      "sort",
      "grep",
      "rg",
      "diff",
      "git log",
      "git diff",
    ];
    const tables = allProgramOptions().filter((t) => readers.includes(t.program));
    fc.assert(
      fc.property(fc.constantFrom(...tables), fc.nat(), (table, seed) => {
        const safe = [...table.long.values()].filter(
          (s) => !s.effect && s.value === "none" && !/^--(help|version)$/.test(s.name),
        );
        const spec = safe[seed % safe.length] as OptionSpec;
        const line = lineWith(table, spec.name);
        return judged(line).readOnly === true;
      }),
      { numRuns: 500 },
    );
  });
});
