// The options of programs judged read-only, as data for option-parser.ts: GNU coreutils, grep,
// ripgrep, sed, gawk, jq and git's inspecting subcommands. Every option that writes, runs code,
// reads other processes' data or names files to read carries its mark (see defineOptions); a table
// whose effects are not all known says so, and then an option it does not list is not trusted.
import { defineOptions, type ProgramOptions } from "./option-parser.js";

const CHECKSUM_LONG =
  "binary check tag text zero ignore-missing quiet status strict warn length= untagged base64 raw";
const GIT_DIFF_LONG = `output=> ext-diff! no-ext-diff textconv no-textconv patch no-patch unified= raw patch-with-raw
  indent-heuristic no-indent-heuristic minimal patience histogram anchored= diff-algorithm= stat? compact-summary
  numstat shortstat dirstat? cumulative dirstat-by-file? summary patch-with-stat name-only name-status submodule?
  color? no-color color-moved? no-color-moved color-moved-ws= word-diff? word-diff-regex= color-words? no-renames
  rename-empty no-rename-empty check ws-error-highlight= full-index binary abbrev? break-rewrites? find-renames?
  find-copies? find-copies-harder irreversible-delete diff-filter= pickaxe-all pickaxe-regex relative? no-relative
  text ignore-cr-at-eol ignore-space-at-eol ignore-space-change ignore-all-space ignore-blank-lines
  ignore-matching-lines= inter-hunk-context= function-context exit-code quiet ignore-submodules? src-prefix=
  dst-prefix= no-prefix default-prefix line-prefix= ita-invisible-in-index ita-visible-in-index cached staged
  merge-base no-index skip-to= rotate-to= find-object= output-indicator-new= output-indicator-old=
  output-indicator-context= base ours theirs combined-all-paths remerge-diff diff-merges= no-diff-merges cc
  dd first-parent`;
const GIT_LOG_LONG = `${GIT_DIFF_LONG} follow no-decorate decorate? decorate-refs= decorate-refs-exclude= source
  mailmap no-mailmap use-mailmap log-size pretty? format= oneline abbrev-commit no-abbrev-commit encoding=
  expand-tabs? no-expand-tabs notes? no-notes show-notes? show-signature relative-date date= parents children
  left-right graph show-linear-break? max-count= skip= since= after= until= before= since-as-filter= author=
  committer= grep-reflog= grep= all-match invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings
  perl-regexp remove-empty merges no-merges min-parents= max-parents= no-min-parents no-max-parents
  exclude-first-parent-only not all branches? tags? remotes? glob= exclude= exclude-hidden= reflog alternate-refs
  single-worktree ignore-missing bisect stdin cherry-mark cherry-pick left-only right-only cherry walk-reflogs
  merge boundary simplify-by-decoration show-pulls full-history dense sparse simplify-merges ancestry-path?
  author-date-order date-order topo-order reverse no-walk? do-walk no-show-signature clear-decorations count
  unpacked objects objects-edge in-commit-order timestamp`;

const T = (short: string, long: string, flags?: Parameters<typeof defineOptions>[3]) => ({
  short,
  long,
  flags,
});

/** Option tables by program, and by `git <subcommand>` for git. */
const SPECS: Readonly<Record<string, ReturnType<typeof T>>> = {
  cat: T("AbeEnstTuv", "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting"),
  head: T("c:n:qvz", "bytes= lines= quiet silent verbose zero-terminated", {
    effectsComplete: true,
    numberOption: true,
  }),
  tail: T(
    "c:fFn:qs:vz",
    "bytes= follow? lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose zero-terminated",
    { effectsComplete: true, numberOption: true },
  ),
  wc: T("clLmw", "bytes chars lines files0-from=@ max-line-length words total="),
  ls: T(
    "aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1",
    `all almost-all author escape block-size= ignore-backups color? directory dired classify? file-type format=
     full-time group-directories-first no-group human-readable si dereference-command-line
     dereference-command-line-symlink-to-dir hide= hyperlink? indicator-style= inode ignore= kibibytes dereference
     numeric-uid-gid literal hide-control-chars show-control-chars quote-name quoting-style= reverse recursive size
     sort= time= time-style= tabsize= width= context zero`,
  ),
  nl: T(
    "b:d:f:h:i:l:n:ps:v:w:",
    "body-numbering= section-delimiter= footer-numbering= header-numbering= line-increment= join-blank-lines= number-format= no-renumber number-separator= starting-line-number= number-width=",
  ),
  cut: T(
    "b:c:d:f:nsz",
    "bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated",
  ),
  tr: T("cCdst", "complement delete squeeze-repeats truncate-set1"),
  paste: T("d:sz", "delimiters= serial zero-terminated"),
  rev: T("0", "zero"),
  fold: T("bsw:", "bytes spaces width="),
  comm: T("123z", "check-order nocheck-order output-delimiter= total zero-terminated"),
  cmp: T("bi:ln:sv", "print-bytes ignore-initial= verbose bytes= quiet silent"),
  diff: T(
    "abBcC:dD:eEfF:hiI:lL:nNpPqrsS:tTuU:vwW:x:X:<y",
    `normal brief report-identical-files context? unified? ed rcs side-by-side left-column suppress-common-lines
     show-c-function show-function-line= label= expand-tabs initial-tab tabsize= suppress-blank-empty paginate
     width= new-file unidirectional-new-file ignore-case ignore-file-name-case no-ignore-file-name-case
     ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines
     ignore-matching-lines= text strip-trailing-cr recursive no-dereference starting-file= exclude= exclude-from=<
     ifdef= old-group-format= new-group-format= unchanged-group-format= changed-group-format= line-format=
     old-line-format= new-line-format= unchanged-line-format= minimal horizontal-lines= speed-large-files
     from-file=< to-file=< color? palette=`,
  ),
  tac: T("brs:", "before regex separator="),
  strings: T(
    "adfn:t:e:owT:s:U:",
    "all data print-file-name bytes= radix= encoding= target= output-separator= include-all-whitespace unicode=",
  ),
  od: T(
    "A:bcdfij:lN:oS:st:vw::x",
    "address-radix= endian= skip-bytes= read-bytes= strings? format= output-duplicates width? traditional",
  ),
  hexdump: T(
    "bcCde:f:<n:os:vxL::",
    "one-byte-octal one-byte-char canonical two-bytes-decimal format= format-file=< color? length= skip= no-squeezing two-bytes-octal two-bytes-hex",
  ),
  stat: T("Lfc:t", "dereference file-system format= printf= terse cached="),
  du: T(
    "0abB:cd:DhHklLmPst:SxX:<",
    `null all apparent-size block-size= bytes total max-depth= human-readable inodes si summarize threshold= time?
     time-style= exclude-from=< exclude= one-file-system dereference-args dereference no-dereference count-links
     files0-from=@ separate-dirs`,
  ),
  df: T(
    "aB:hHiklmPt:Tvx:",
    "all block-size= human-readable si inodes local no-sync output? portability print-type type= exclude-type= sync total",
  ),
  realpath: T(
    "eLmPqsz",
    "canonicalize-existing canonicalize-missing logical physical quiet relative-to= relative-base= strip no-symlinks zero",
  ),
  readlink: T(
    "efmnqsvz",
    "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero",
  ),
  basename: T("as:z", "multiple suffix= zero"),
  dirname: T("z", "zero"),
  sha1sum: T("bcl:tzw", CHECKSUM_LONG),
  sha224sum: T("bcl:tzw", CHECKSUM_LONG),
  sha256sum: T("bcl:tzw", CHECKSUM_LONG),
  sha384sum: T("bcl:tzw", CHECKSUM_LONG),
  sha512sum: T("bcl:tzw", CHECKSUM_LONG),
  md5sum: T("bcl:tzw", CHECKSUM_LONG),
  b2sum: T("bcl:tzw", CHECKSUM_LONG),
  cksum: T("a:bcl:tzw", `algorithm= ${CHECKSUM_LONG} debug`),
  shasum: T(
    "a:bcpts0U",
    "algorithm= binary check text tag portable 01 UNIVERSAL status quiet warn strict ignore-missing",
  ),
  // BSD base64 writes with -o/--output; GNU refuses both.
  base64: T("diw:o:>", "decode ignore-garbage wrap= output=> input=<"),
  base32: T("diw:", "decode ignore-garbage wrap="),
  expand: T("it:", "initial tabs="),
  unexpand: T("at:", "all first-only tabs="),
  fmt: T("cstup:w:g:", "crown-margin prefix= split-only tagged-paragraph uniform-spacing width= goal=", {
    effectsComplete: true,
    numberOption: true,
  }),
  pr: T(
    "acdD:e::fFh:i::JlL:mn::N:o:rs::S::tTvw:W:",
    "across show-control-chars double-space date-format= expand-tabs? form-feed header= output-tabs? join-lines length= merge number-lines? first-line-number= indent= no-file-warnings separator? sep-string? omit-header omit-pagination show-nonprinting width= page-width= columns= pages=",
    { effectsComplete: true, numberOption: true },
  ),
  uniq: T(
    "cdDf:is:uw:z",
    "count repeated all-repeated? skip-fields= ignore-case skip-chars= unique zero-terminated check-chars= group?",
  ),
  // -o and --output write, --compress-program runs a program, --files0-from names the files read.
  sort: T(
    "bcCdfghik:mMno:>rRs:S:t:T:uVz",
    `ignore-leading-blanks check? dictionary-order ignore-case general-numeric-sort human-numeric-sort ignore-nonprinting
     key= merge month-sort numeric-sort output=> reverse random-sort random-source=< stable buffer-size=
     field-separator= temporary-directory= unique version-sort zero-terminated sort= batch-size= compress-program=!
     debug files0-from=@ parallel=`,
  ),
  iconv: T("f:t:clo:>s", "from-code= to-code= list output=> silent verbose"),
  tree: T(
    "adlfxACDFJLNpsugHhiIPqQrtSUvcRo:>",
    `output=> help version noreport charset= filelimit= timefmt= du si prune dirsfirst filesfirst gitignore gitfile=<
     info infofile=< fromfile fromtabfile matchdirs metafirst icase inodes device nolinks noindent sort= hintro= houtro=
     hyperlink`,
  ),
  // -C compiles the magic database into a file of the working directory; -f names the files read.
  file: T(
    "bcC>dEhiklLm:<nNprsSvzZ0e:f:@F:P:M:<",
    `brief checking-printout compile> exclude= exclude-quiet= extension files-from=@ separator= mime mime-type
     mime-encoding keep-going list raw dereference no-dereference magic-file=< no-pad no-sandbox preserve-date
     special-files uncompress uncompress-noreport print0 parameter= apple`,
  ),
  // -C compile, -F default file: -C writes.
  date: T(
    "d:f:<I::Rr:<s:>uD",
    "date= file=< iso-8601? resolution rfc-email rfc-822 rfc-2822 rfc-3339= reference=< set=> universal utc debug",
  ),
  grep: T(
    "EFGPe:f:<iyvwxczLlm:obHhnqsrRuUZzaD:d:A:B:C:IT",
    `extended-regexp fixed-strings basic-regexp perl-regexp regexp= file=< ignore-case no-ignore-case word-regexp
     line-regexp null-data no-messages invert-match byte-offset line-number no-line-number line-buffered with-filename
     no-filename label= only-matching quiet silent binary-files= text devices= directories= exclude= exclude-from=<
     exclude-dir= include= recursive dereference-recursive files-without-match files-with-matches count initial-tab
     null max-count= before-context= after-context= context= color? colour? binary`,
    { effectsComplete: true, numberOption: true },
  ),
  // --pre and --hostname-bin run programs, -z runs decompression programs.
  rg: T(
    "A:B:C:cE:e:f:<FG:g:HhiIj:lLm:M:nNoOpPqr:sSt:T:uUvVwxz!0a.",
    `after-context= before-context= context= count count-matches encoding= regexp= file=< fixed-strings glob= iglob=
     glob-case-insensitive with-filename no-filename ignore-case no-ignore threads= files-with-matches
     files-without-match follow max-count= max-columns= max-columns-preview line-number no-line-number only-matching
     pretty pcre2 quiet replace= case-sensitive smart-case type= type-not= type-add= type-clear= type-list unrestricted
     invert-match word-regexp line-regexp search-zip! null text hidden no-hidden files json no-json stats
     no-stats column no-column heading no-heading trim no-trim color= colors= sort= sortr= sort-files max-depth=
     maxdepth= max-filesize= ignore-file=< ignore-file-case-insensitive no-ignore-vcs no-ignore-parent no-ignore-dot
     no-ignore-global no-ignore-exclude no-ignore-files no-messages no-config pre=! pre-glob= hostname-bin=! engine=
     path-separator= passthru passthrough multiline multiline-dotall crlf null-data binary no-binary block-buffered
     line-buffered byte-offset vimgrep one-file-system dfa-size-limit= regex-size-limit= context-separator=
     field-context-separator= field-match-separator= include-zero no-include-zero auto-hybrid-regex no-unicode
     no-pcre2-unicode debug trace generate= hyperlink-format= unicode ignore-case-insensitive`,
  ),
  // -i edits in place (with an optional attached suffix), -f runs a script from a file.
  sed: T(
    "ne:f:!Eri::>l:suzb",
    `quiet silent expression= file=! in-place?> line-length= null-data zero-terminated regexp-extended separate
     sandbox unbuffered binary follow-symlinks debug posix`,
  ),
  // -f/-i/-l/-E load programs; -o, -p and -d write their reports to a file.
  awk: T(
    "bcCd::>D::e:E:!f:!F:gh::i:!l:!L::nNo::>Op::>PrsStv:VYM",
    `assign= field-separator= file=! source= include=! load=! exec=! dump-variables?> debug? pretty-print?> profile?>
     characters-as-bytes traditional copyright gen-pot lint? non-decimal-data optimize no-optimize posix re-interval
     sandbox use-lc-numeric bignum csv`,
  ),
  jq: T(
    "nrjaCMSscteL:f:<",
    `null-input raw-input slurp compact-output tab indent= color-output monochrome-output ascii-output sort-keys
     raw-output raw-output0 join-output unbuffered stream stream-errors seq exit-status arg= argjson= slurpfile=
     rawfile= args jsonargs from-file=< library-path= build-configuration`,
  ),
  // yq writes with -i and splits documents into files with -s.
  yq: T(
    "i>s:>ePCMNnrjo:p:I:0f:<",
    `inplace> split-exp=> split-exp-file=> exit-status prettyPrint colors no-colors no-doc null-input unwrapScalar
     output-format= input-format= indent= nul-output front-matter= from-file=< expression= xml-attribute-prefix=
     xml-content-name= header-preprocess no-header-preprocess verbose`,
    { effectsComplete: false },
  ),
  // `env -S`/`--split-string` and `-C` are read by the shell parser; env itself only prints.
  env: T(
    "0iu:C:S:!vP:",
    "null ignore-environment unset= chdir= split-string=! debug argv0= block-signal? default-signal? ignore-signal? list-signal-handling",
    {
      effectsComplete: true,
      stopAtOperand: true,
    },
  ),
  tee: T("aip", "append ignore-interrupts output-error?"),
  // Search and listing tools with many options: those not listed are not trusted.
  bat: T(
    "ApnlL:H:r:m:Pud",
    `show-all plain language= highlight-line= file-name= diff diff-context= tabs= wrap= chop-long-lines terminal-width=
     number color= italic-text= decorations= paging= pager=! map-syntax= ignored-suffix= theme= list-themes
     list-languages style= line-range= unbuffered no-config no-custom-assets config-file config-dir cache-dir
     squeeze-blank squeeze-limit= strip-ansi= nonprintable-notation= binary= set-terminal-title`,
    { effectsComplete: false },
  ),
  // -x/-X run a command for each file found.
  fd: T(
    "HIusiFgapLlhd:t:e:E:c:x!X!j:S:o:0q1",
    `hidden no-hidden no-ignore ignore no-ignore-vcs ignore-vcs no-require-git require-git no-ignore-parent
     unrestricted case-sensitive ignore-case glob regex fixed-strings and= absolute-path relative-path list-details
     follow no-follow full-path print0 max-depth= min-depth= exact-depth= exclude= prune type= extension= size=
     changed-within= changed-before= owner= format= exec=! exec-batch=! batch-size= ignore-file=< color= hyperlink?
     threads= max-results= quiet show-errors base-directory=< path-separator= search-path=< strip-cwd-prefix?
     one-file-system`,
    { effectsComplete: false },
  ),
  ag: T(
    "aAB:C:cDfgG:hHiILlm:noQrsStuUvVwz0",
    `ackmate all-text all-types after= before= break no-break count color no-color column context= files-with-matches
     files-without-matches fixed-strings filename no-filename follow file-search-regex= group no-group hidden
     ignore= ignore-dir= ignore-case literal max-count= numbers no-numbers only-matching pager=! no-pager
     print-long-lines passthrough silent skip-vcs-ignores smart-case stats search-binary unrestricted
     vimgrep word-regexp depth= one-device`,
    { effectsComplete: false },
  ),
  // --output is Perl code; --pager runs a program.
  ack: T(
    "A:B:C:cfgHhiIklLm:nQsvwx1",
    `after-context= before-context= context= count files-with-matches files-without-matches ignore-case
     smart-case literal max-count= no-filename with-filename word-regexp type= pager=! nopager output=! noenv
     color nocolor column nocolumn heading noheading break nobreak group nogroup sort-files follow nofollow`,
    { effectsComplete: false },
  ),
  tokei: T("e:fhlo:s:tVvC", "exclude= files hidden languages output= sort= type= compact no-ignore", {
    effectsComplete: false,
  }),
  cloc: T(
    "",
    "by-file by-file-by-lang exclude-dir= exclude-lang= include-lang= exclude-ext= include-ext= quiet vcs= json csv md yaml",
    {
      effectsComplete: false,
    },
  ),
  // git's inspecting subcommands (git's parse-options also takes any unique prefix of a long option).
  "git diff": T("pusz0abwR:O:<S:G:l:M::C::B::D", GIT_DIFF_LONG),
  "git diff-tree": T("rtpusz0abwR:O:<S:G:l:M::C::B::mcv", `${GIT_DIFF_LONG} stdin root always`),
  "git diff-index": T("pusz0abwRO:<S:G:l:M::C::B::m", GIT_DIFF_LONG),
  "git diff-files": T("pusz0abwRO:<S:G:l:M::C::B::q123c", GIT_DIFF_LONG),
  "git log": T("pusz0abwR:O:<S:G:L:l:M::C::B::Dn:igmcEFP", GIT_LOG_LONG, {
    effectsComplete: true,
    numberOption: true,
  }),
  "git show": T("pusz0abwR:O:<S:G:L:l:M::C::B::Dn:igmc", GIT_LOG_LONG, {
    effectsComplete: true,
    numberOption: true,
  }),
  "git whatchanged": T("pusz0abwR:O:<S:G:L:l:M::C::B::Dn:igmc", GIT_LOG_LONG, {
    effectsComplete: true,
    numberOption: true,
  }),
  "git shortlog": T("nsec:w::", `numbered summary email group= committer format= ${GIT_LOG_LONG}`),
  "git range-diff": T(
    "pusz0abwR:O:<S:G:l:M::C::B::",
    `creation-factor= left-only right-only ${GIT_DIFF_LONG}`,
  ),
  "git blame": T(
    "bcfhlnpstwC::M::eL:S:<",
    `root show-stats progress incremental porcelain line-porcelain score-debug show-name show-number show-email contents=< reverse= first-parent encoding= date= ignore-rev= ignore-revs-file=< color-lines color-by-age minimal abbrev?`,
  ),
  // -O opens the matching files in a pager: it runs a program.
  "git grep": T(
    "aiIwvhHEGPFnblLozcpWe:f:<A:B:C:m:qO::!rt",
    `cached untracked no-index no-exclude-standard exclude-standard recurse-submodules text textconv no-textconv
     ignore-case max-depth= recursive no-recursive word-regexp invert-match full-name extended-regexp basic-regexp
     perl-regexp fixed-strings line-number column files-with-matches name-only files-without-match
     open-files-in-pager?! null only-matching count color? no-color break heading show-function context=
     after-context= before-context= function-context threads= and or not all-match quiet max-count= regexp= file=<`,
  ),
  // Force, mirror, delete and + refspecs rewrite or drop remote history; --exec runs a program.
  "git push": T(
    "fdnqvu46o:",
    `force force-with-lease? force-if-includes no-force-if-includes mirror delete prune all branches tags follow-tags
     atomic no-atomic set-upstream dry-run porcelain quiet verbose progress no-progress no-verify verify signed?
     push-option= repo= receive-pack=! exec=! recurse-submodules= thin no-thin ipv4 ipv6`,
  ),
  "git clean": T("dfinqe:xX", "dry-run force interactive quiet exclude="),
  "git rm": T(
    "fnqr",
    "force dry-run quiet cached ignore-unmatch sparse pathspec-from-file=@ pathspec-file-nul",
  ),
  "git checkout": T(
    "fqmpb:B:t",
    "force quiet merge patch track? no-track guess no-guess orphan= detach ours theirs ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore no-overwrite-ignore recurse-submodules? no-recurse-submodules conflict= progress no-progress pathspec-from-file=@ pathspec-file-nul overlay no-overlay",
  ),
  "git restore": T(
    "s:WSpqm23",
    "source= staged worktree patch quiet progress no-progress ours theirs merge conflict= overlay no-overlay ignore-unmerged ignore-skip-worktree-bits recurse-submodules? pathspec-from-file=@ pathspec-file-nul",
  ),
  "git reset": T(
    "qpN",
    "hard soft mixed merge keep quiet patch intent-to-add no-refresh refresh pathspec-from-file=@ pathspec-file-nul recurse-submodules? no-recurse-submodules",
  ),
  "git rebase": T(
    "iqvnfkx:!s:X:C:mSr",
    "root onto= keep-base interactive exec=! autosquash no-autosquash autostash no-autostash continue abort skip quit edit-todo show-current-patch apply merge empty= keep-empty no-keep-empty reapply-cherry-picks no-reapply-cherry-picks allow-empty-message strategy= strategy-option= gpg-sign? no-gpg-sign quiet verbose stat no-stat no-verify verify force-rebase no-ff fork-point no-fork-point ignore-whitespace whitespace= committer-date-is-author-date ignore-date signoff rebase-merges? update-refs no-update-refs reschedule-failed-exec no-reschedule-failed-exec",
  ),
};

/** Programs read with another's table. */
const ALIASES: Readonly<Record<string, string>> = {
  egrep: "grep",
  fgrep: "grep",
  zgrep: "grep",
  gawk: "awk",
  mawk: "awk",
  nawk: "awk",
  fdfind: "fd",
};

/**
 * Tables built on first use: building all of them is a few milliseconds of every start-up, before
 * the first request, and a run judges a handful of programs.
 */
const TABLES = new Map<string, ProgramOptions>();

/** The option table of a program (or `git <subcommand>`), when we have one. */
export function programOptions(name: string): ProgramOptions | undefined {
  const key = Object.hasOwn(ALIASES, name) ? (ALIASES[name] as string) : name;
  const built = TABLES.get(key);
  if (built !== undefined || !Object.hasOwn(SPECS, key)) return built;
  const s = SPECS[key] as ReturnType<typeof T>;
  const table = defineOptions(key, s.short, s.long.replace(/\s+/g, " ").trim(), s.flags);
  TABLES.set(key, table);
  return table;
}

/** Every table, for tests that check each option with an effect. */
export function allProgramOptions(): readonly ProgramOptions[] {
  return Object.keys(SPECS).map((name) => programOptions(name) as ProgramOptions);
}
