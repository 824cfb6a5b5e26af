// codex's apply_patch scenario set (one case per scenario, contents of our own), run through the
// OpenAI profile's apply_patch tool on real files. Where codex keeps the part of a failing patch
// that was already written, our contract is all-or-nothing: the expected tree is the input tree.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createOpenAIProfile } from "../src/profiles/openai/index.js";
import type { ToolOutput } from "../src/types/tool.js";

type Tree = Record<string, string>;

interface Scenario {
  readonly name: string;
  readonly input: Tree;
  readonly patch: string;
  /** The whole tree afterwards; the input tree when the patch must fail. */
  readonly expected: Tree;
  readonly error?: RegExp;
  readonly output?: RegExp;
  /** Directories to create before the patch runs. */
  readonly dirs?: readonly string[];
}

const patch = (...lines: string[]): string => ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");

const scenarios: readonly Scenario[] = [
  {
    name: "001 adds a file",
    input: {},
    patch: patch("*** Add File: notes.md", "+# Notes", "+first entry"),
    expected: { "notes.md": "# Notes\nfirst entry\n" },
    output: /^Success\. Updated the following files:\nA notes\.md$/,
  },
  {
    name: "002 adds, deletes and updates in one patch",
    input: { "gone.txt": "remove me\n", "change.txt": "keep\nold value\n" },
    patch: patch(
      "*** Add File: deep/inside/made.txt",
      "+created",
      "*** Delete File: gone.txt",
      "*** Update File: change.txt",
      "@@",
      " keep",
      "-old value",
      "+new value",
    ),
    expected: { "deep/inside/made.txt": "created\n", "change.txt": "keep\nnew value\n" },
    output: /A deep\/inside\/made\.txt\nD gone\.txt\nM change\.txt/,
  },
  {
    name: "003 applies several hunks to one file",
    input: { "list.txt": "one\ntwo\nthree\nfour\nfive\nsix\n" },
    patch: patch("*** Update File: list.txt", "@@", " one", "-two", "+TWO", "@@", " five", "-six", "+SIX"),
    expected: { "list.txt": "one\nTWO\nthree\nfour\nfive\nSIX\n" },
  },
  {
    name: "004 moves a file into a new directory",
    input: { "src/a.txt": "alpha\n", "src/b.txt": "beta\n" },
    patch: patch("*** Update File: src/a.txt", "*** Move to: lib/new/a2.txt", "@@", "-alpha", "+ALPHA"),
    expected: { "lib/new/a2.txt": "ALPHA\n", "src/b.txt": "beta\n" },
  },
  {
    name: "005 rejects an empty patch",
    input: { "x.txt": "x\n" },
    patch: patch(),
    expected: { "x.txt": "x\n" },
    error: /no file operations|empty/i,
  },
  {
    name: "006 rejects a hunk whose context is not in the file",
    input: { "m.txt": "line one\nline two\n" },
    patch: patch("*** Update File: m.txt", "@@", "-no such line", "+replacement"),
    expected: { "m.txt": "line one\nline two\n" },
    error: /m\.txt/,
  },
  {
    name: "007 rejects deleting a missing file",
    input: { "x.txt": "x\n" },
    patch: patch("*** Delete File: absent.txt"),
    expected: { "x.txt": "x\n" },
    error: /Cannot delete absent\.txt/,
  },
  {
    name: "008 rejects an Update without hunks",
    input: { "x.txt": "x\n" },
    patch: patch("*** Update File: x.txt"),
    expected: { "x.txt": "x\n" },
    error: /no hunks/,
  },
  {
    name: "009 rejects updating a missing file",
    input: { "x.txt": "x\n" },
    patch: patch("*** Update File: absent.txt", "@@", "-a", "+b"),
    expected: { "x.txt": "x\n" },
    error: /Cannot update absent\.txt/,
  },
  {
    name: "010 Move to onto an existing file replaces it",
    input: { "old/name.txt": "from\n", "old/other.txt": "stays\n", "renamed/dir/name.txt": "was here\n" },
    patch: patch("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-from", "+new"),
    expected: { "old/other.txt": "stays\n", "renamed/dir/name.txt": "new\n" },
    output: /M renamed\/dir\/name\.txt \(moved from old\/name\.txt, replaced the file that was there\)/,
  },
  {
    name: "011 Add File over an existing file replaces it",
    input: { "duplicate.txt": "old content\n" },
    patch: patch("*** Add File: duplicate.txt", "+new content"),
    expected: { "duplicate.txt": "new content\n" },
    output: /A duplicate\.txt \(replaced the file that was there\)/,
  },
  {
    name: "012 rejects deleting a directory",
    input: { "dir/foo.txt": "foo\n" },
    patch: patch("*** Delete File: dir"),
    expected: { "dir/foo.txt": "foo\n" },
    error: /dir/,
  },
  {
    name: "013 rejects an invalid file header",
    input: { "foo.txt": "foo\n" },
    patch: patch("*** Frobnicate File: foo.txt", "+x"),
    expected: { "foo.txt": "foo\n" },
    error: /not a valid file header/,
  },
  {
    name: "014 an updated file ends with a line break",
    input: { "no_newline.txt": "no newline at end" },
    patch: patch(
      "*** Update File: no_newline.txt",
      "@@",
      "-no newline at end",
      "+first line",
      "+second line",
    ),
    expected: { "no_newline.txt": "first line\nsecond line\n" },
  },
  {
    name: "015 a failure after a successful operation changes nothing (all-or-nothing)",
    input: {},
    patch: patch("*** Add File: created.txt", "+hello", "*** Update File: missing.txt", "@@", "-a", "+b"),
    expected: {},
    error: /Cannot update missing\.txt/,
  },
  {
    name: "016 a hunk of only additions appends to the file",
    input: { "input.txt": "line1\nline2\n" },
    patch: patch("*** Update File: input.txt", "@@", "+added line 1", "+added line 2"),
    expected: { "input.txt": "line1\nline2\nadded line 1\nadded line 2\n" },
  },
  {
    name: "017 a file header padded with spaces",
    input: { "foo.txt": "old\n" },
    patch: ["*** Begin Patch", "  *** Update File: foo.txt", "@@", "-old", "+new", "*** End Patch"].join(
      "\n",
    ),
    expected: { "foo.txt": "new\n" },
  },
  {
    name: "018 Begin and End markers padded with spaces",
    input: { "file.txt": "one\n" },
    patch: [" *** Begin Patch", "*** Update File: file.txt", "@@", "-one", "+two", "*** End Patch "].join(
      "\n",
    ),
    expected: { "file.txt": "two\n" },
  },
  {
    name: "019 Unicode text matched and written as is",
    input: { "foo.txt": "naïve café\nΩ≈ç√\n" },
    patch: patch("*** Update File: foo.txt", "@@", " naïve café", "-Ω≈ç√", "+∑ ñ 日本"),
    expected: { "foo.txt": "naïve café\n∑ ñ 日本\n" },
  },
  {
    name: "020 deletes a file",
    input: { "obsolete.txt": "bye\n", "keep.txt": "stay\n" },
    patch: patch("*** Delete File: obsolete.txt"),
    expected: { "keep.txt": "stay\n" },
  },
  {
    name: "020b marker lines padded with spaces on the other side",
    input: { "file.txt": "one\n" },
    patch: ["*** Begin Patch ", "*** Update File: file.txt", "@@", "-one", "+two", " *** End Patch"].join(
      "\n",
    ),
    expected: { "file.txt": "two\n" },
  },
  {
    name: "021 a hunk that only removes lines",
    input: { "lines.txt": "line1\nline2\nline3\n" },
    patch: patch("*** Update File: lines.txt", "@@", " line1", "-line2", " line3"),
    expected: { "lines.txt": "line1\nline3\n" },
  },
  {
    name: "022 End of File marks a hunk at the end",
    input: { "tail.txt": "first\nsecond\nlast\n" },
    patch: patch("*** Update File: tail.txt", "@@", " second", "-last", "+final", "*** End of File"),
    expected: { "tail.txt": "first\nsecond\nfinal\n" },
  },
];

let root: string;
const tool = createOpenAIProfile("gpt-5").toolRegistry.get("apply_patch");
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "apply-patch-scenarios-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function treeOf(dir: string): Promise<Tree> {
  const out: Tree = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = await readFile(path, "utf8");
  }
  return out;
}

describe("codex apply_patch scenarios through the OpenAI profile's apply_patch", () => {
  it.each(scenarios.map((s) => [s.name, s] as const))("%s", async (_name, scenario) => {
    expect(tool).toBeDefined();
    const dir = join(root, scenario.name.slice(0, 4).trim());
    await mkdir(dir, { recursive: true });
    for (const [path, content] of Object.entries(scenario.input)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    const out = (await tool?.executor({ patch: scenario.patch }, env, { toolCallId: "t" })) as ToolOutput;
    if (scenario.error) {
      expect(out.isError).toBe(true);
      expect(out.output).toMatch(/^apply_patch failed, no file was changed: /);
      expect(out.output).toMatch(scenario.error);
    } else {
      expect(out.isError, out.output).toBeFalsy();
    }
    if (scenario.output) expect(out.output).toMatch(scenario.output);
    expect(await treeOf(dir)).toEqual(scenario.expected);
    // Directories a failed patch would have created are not left behind either.
    if (scenario.error) {
      for (const made of ["deep", "lib", "renamed"]) {
        await expect(stat(join(dir, made))).rejects.toThrow();
      }
    }
  });
});
