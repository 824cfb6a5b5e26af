import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type GrepOptions,
  type GrepResult,
  globTool,
  grepTool,
  InvalidPatternError,
  LocalExecutionEnvironment,
  listDirTool,
} from "../src/index.js";
import { ripgrepAvailable } from "../src/internals.js";

let dir: string;
let rg: LocalExecutionEnvironment;
let js: LocalExecutionEnvironment;

async function put(rel: string, content: string | Buffer, mtimeSec?: number): Promise<void> {
  const path = join(dir, rel);
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, content);
  if (mtimeSec !== undefined) await utimes(path, mtimeSec, mtimeSec);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "search-test-"));
  await put(".gitignore", "build/\n*.log\n!keep.log\n");
  await put("src/a.ts", "import x from 'y';\nconst Needle = 1;\nfunction f() {}\nconst needle = 2;\n", 1000);
  await put("src/b.ts", "one\ntwo\nneedle three\nfour\nfive\nsix\nneedle seven\n", 3000);
  await put("src/deep/c.py", "def needle():\n    return 'NEEDLE'\n", 2000);
  await put("src/sub/.gitignore", "ignored.ts\n");
  await put("src/sub/ignored.ts", "needle\n");
  await put("src/sub/kept.ts", "needle kept\n", 500);
  await put("build/out.js", "needle\n");
  await put("debug.log", "needle\n");
  await put("keep.log", "needle\n", 100);
  await put(".hidden/x.ts", "needle\n");
  await put("bin.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2])]), 50);
  await put("docs/readme.md", "Needle in docs\n", 4000);
  rg = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "ripgrep" });
  js = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "javascript" });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cases: [string, string, string, GrepOptions][] = [
  ["plain", "needle", ".", {}],
  ["case-insensitive", "needle", ".", { caseInsensitive: true }],
  ["glob filter", "needle", ".", { globFilter: "*.ts", caseInsensitive: true }],
  ["glob filter with a path", "needle", ".", { globFilter: "src/**/*.py", caseInsensitive: true }],
  ["sub path", "needle", "src", {}],
  ["single file", "needle", "src/b.ts", {}],
  ["max results", "needle", ".", { maxResults: 2, caseInsensitive: true }],
  ["context lines", "needle", "src", { contextLines: 2 }],
  ["files_with_matches", "needle", ".", { outputMode: "files_with_matches", caseInsensitive: true }],
  ["count", "needle", ".", { outputMode: "count", maxResults: 3 }],
  ["regex", "^const \\w+ = \\d;$", ".", {}],
];

// CI installs ripgrep: there the comparison below must run, not be skipped.
it.runIf(process.env.CI !== undefined)("ripgrep is installed under CI", () => {
  expect(ripgrepAvailable()).toBe(true);
});

/**
 * Both engines give the same result. With more results than max_results, each may stop once it
 * has them and one more (then it says so and its total is a lower bound) or finish the scan (then
 * its total is exact); either way it returns max_results real results, which ones depending on
 * the order it found them in.
 */
async function expectAgreement(
  rgEnv: LocalExecutionEnvironment,
  jsEnv: LocalExecutionEnvironment,
  pattern: string,
  path: string,
  options: GrepOptions,
): Promise<GrepResult> {
  const a = await rgEnv.grep(pattern, path, options);
  const b = await jsEnv.grep(pattern, path, options);
  expect(a.engine).toBe("ripgrep");
  expect(b.engine).toBe("javascript");
  if (!a.truncated && !b.truncated) {
    expect({ ...b, engine: "ripgrep" }).toEqual(a);
    return a;
  }
  // Per-file counts of every match, from both engines (small even for millions of matches).
  const counting = { ...options, outputMode: "count" as const, maxResults: 1_000_000 };
  const counts = await rgEnv.grep(pattern, path, counting);
  expect({ ...(await jsEnv.grep(pattern, path, counting)), engine: "ripgrep" }).toEqual(counts);
  const countOf = new Map(counts.files.map((f) => [f.path, f.count]));
  const totalLines = counts.files.reduce((n, f) => n + f.count, 0);
  const max = options.maxResults ?? 100;
  for (const r of [a, b]) {
    const exact =
      options.outputMode === undefined || options.outputMode === "content" ? totalLines : countOf.size;
    expect(r.truncated).toBe(true);
    if (r.stoppedEarly === true) {
      expect(r.total).toBeGreaterThan(max);
      expect(r.total).toBeLessThanOrEqual(exact);
    } else expect(r.total).toBe(exact);
    if (r.mode === "content") {
      expect(r.matches).toHaveLength(max);
      const files = new Map<string, string[]>();
      for (const m of r.matches) {
        let lines = files.get(m.path);
        if (lines === undefined) {
          lines = (await readFile(join(rgEnv.workingDirectory(), m.path), "utf8")).split("\n");
          files.set(m.path, lines);
        }
        expect(lines[m.line - 1]).toBe(m.text);
      }
    } else {
      expect(r.files).toHaveLength(max);
      for (const f of r.files) expect(f.count).toBe(countOf.get(f.path));
    }
  }
  return a;
}

describe.skipIf(!ripgrepAvailable())("grep: ripgrep and the JavaScript engine agree", () => {
  it.each(cases)("%s", async (_name, pattern, path, options) => {
    await expectAgreement(rg, js, pattern, path, options);
  });
});

describe.skipIf(!ripgrepAvailable())("grep: the engines agree on harder inputs", () => {
  let hard: string;
  let rgHard: LocalExecutionEnvironment;
  let jsHard: LocalExecutionEnvironment;
  beforeAll(async () => {
    hard = await mkdtemp(join(tmpdir(), "search-hard-"));
    const put = async (rel: string, content: string | Buffer): Promise<void> => {
      await mkdir(join(hard, rel, ".."), { recursive: true });
      await writeFile(join(hard, rel), content);
    };
    await put("uni.txt", "жук needle\n123\n٣٤\nstraße\n\t \n");
    await put("crlf.txt", "needle one\r\nother\r\nNEEDLE two\r\n");
    await put(
      "explicit.dat",
      Buffer.concat([Buffer.from("a needle\n"), Buffer.from([0, 1]), Buffer.from("\nneedle b\n")]),
    );
    await put(
      "many.txt",
      Array.from({ length: 3000 }, (_, i) => (i % 3 ? `needle ${i}` : `other ${i}`)).join("\n"),
    );
    // Over 8 MB: the JavaScript engine streams it instead of reading it whole.
    await put("large.log", `${"hay\n".repeat(2_200_000)}needle at the end\n`);
    rgHard = new LocalExecutionEnvironment({ workingDirectory: hard, grepEngine: "ripgrep" });
    jsHard = new LocalExecutionEnvironment({ workingDirectory: hard, grepEngine: "javascript" });
  });
  afterAll(() => rm(hard, { recursive: true, force: true }));

  const hardCases: [string, string, string, GrepOptions][] = [
    ["Unicode \\w", "^\\w+", "uni.txt", {}],
    ["Unicode \\d", "\\d", "uni.txt", {}],
    ["POSIX class", "^[[:alpha:]]+$", ".", {}],
    ["inline flag", "(?i)^needle", ".", {}],
    ["CRLF lines", "needle$", ".", { caseInsensitive: true }],
    ["a binary file named explicitly", "needle", "explicit.dat", {}],
    ["many matches in one file, capped", "needle", "many.txt", { maxResults: 7, contextLines: 2 }],
    ["count over a large file", "needle|hay", ".", { outputMode: "count" }],
  ];
  it.each(hardCases)("%s", async (_name, pattern, path, options) => {
    const a = await expectAgreement(rgHard, jsHard, pattern, path, options);
    expect(a.total).toBeGreaterThan(0);
  });
});

describe.each([
  ["ripgrep", () => rg],
  ["javascript", () => js],
] as const)("grep with %s", (name, get) => {
  it.skipIf(name === "ripgrep" && !ripgrepAvailable())(
    "honours .gitignore, skips hidden and binary files",
    async () => {
      const r = await get().grep("needle", ".", { caseInsensitive: true });
      const files = [...new Set(r.matches.map((m) => m.path))];
      expect(files).toEqual([
        "docs/readme.md",
        "keep.log",
        "src/a.ts",
        "src/b.ts",
        "src/deep/c.py",
        "src/sub/kept.ts",
      ]);
      expect(r.total).toBe(9);
      expect(r.truncated).toBe(false);
    },
  );

  it.skipIf(name === "ripgrep" && !ripgrepAvailable())("reports context and truncation", async () => {
    const r = await get().grep("needle", "src/b.ts", { contextLines: 1, maxResults: 1 });
    expect(r.matches).toEqual([
      { path: "src/b.ts", line: 3, text: "needle three", before: ["two"], after: ["four"] },
    ]);
    expect(r.total).toBe(2);
    expect(r.truncated).toBe(true);
  });

  it.skipIf(name === "ripgrep" && !ripgrepAvailable())("rejects an invalid regex clearly", async () => {
    await expect(get().grep("foo(", ".")).rejects.toBeInstanceOf(InvalidPatternError);
  });
});

describe("grep stops once it has what it returns", () => {
  let many: string;
  beforeAll(async () => {
    many = await mkdtemp(join(tmpdir(), "search-many-"));
    for (let d = 0; d < 20; d++) {
      await mkdir(join(many, `d${d}`));
      for (let f = 0; f < 100; f++) await writeFile(join(many, `d${d}`, `f${f}.txt`), "a common word\n");
    }
  });
  afterAll(() => rm(many, { recursive: true, force: true }));

  it.each([
    ["ripgrep", "content"],
    ["ripgrep", "files_with_matches"],
    ["javascript", "content"],
  ] as const)("%s, %s: max_results and one more, then it says more exist", async (engine, mode) => {
    if (engine === "ripgrep" && !ripgrepAvailable()) return;
    const env = new LocalExecutionEnvironment({ workingDirectory: many, grepEngine: engine });
    const r = await env.grep("common", ".", { maxResults: 10, outputMode: mode });
    expect(r).toMatchObject({ truncated: true, stoppedEarly: true });
    // ripgrep is stopped at the 11th result; the JavaScript walk after the batch that reached it.
    if (engine === "ripgrep") expect(r.total).toBe(11);
    else expect(r.total).toBeLessThan(2000);
    expect(r.mode === "content" ? r.matches : r.files).toHaveLength(10);
    const out = await grepTool({ outputModes: true }).executor(
      { pattern: "common", max_results: 10, output_mode: mode },
      env,
      { toolCallId: "t" },
    );
    const text = typeof out === "string" ? out : out.output;
    expect(text).toMatch(
      /\[Results truncated: showing the first 10 (matching lines|files) found; more exist/,
    );
  });
});

describe.skipIf(!ripgrepAvailable())("glob: rg --files and the JavaScript walk agree", () => {
  it.each([
    ["**/*.ts", "."],
    ["*.log", "."],
    ["**/*", "."],
    ["src/**/*.{ts,py}", "."],
    ["deep/*.py", "src"],
    ["src/*", "."],
    ["**/sub/*.ts", "."],
    ["docs/readme.md", "."],
  ])("%s in %s", async (pattern, path) => {
    const a = await rg.glob(pattern, path);
    expect(await js.glob(pattern, path)).toEqual(a);
    // .gitignore is honoured with ripgrep too (its own --glob would let ignored files through).
    expect(a.paths).not.toContain("src/sub/ignored.ts");
    expect(a.paths).not.toContain("debug.log");
  });
});

describe("glob", () => {
  it("matches with .gitignore honoured, newest first", async () => {
    const r = await js.glob("**/*.ts");
    expect(r.paths).toEqual(["src/b.ts", "src/a.ts", "src/sub/kept.ts"]);
    expect(r.total).toBe(3);
  });

  it("caps results and reports the total", async () => {
    const r = await js.glob("**/*", ".", { maxResults: 2 });
    expect(r.paths).toEqual(["docs/readme.md", "src/b.ts"]);
    expect(r.truncated).toBe(true);
    expect(r.total).toBe(7);
  });

  it("walks only the literal prefix and accepts a base path", async () => {
    expect((await js.glob("deep/*.py", "src")).paths).toEqual(["src/deep/c.py"]);
    expect((await js.glob("*.md")).paths).toEqual(["docs/readme.md"]);
  });
});

describe("listDirectory", () => {
  it("lists to a depth with sizes, .gitignore honoured, .git and hidden skipped", async () => {
    await put(".git/HEAD", "ref\n");
    const entries = await js.listDirectory(".", 2);
    expect(entries.map((e) => e.path)).toEqual([
      "bin.dat",
      "docs",
      "docs/readme.md",
      "keep.log",
      "src",
      "src/a.ts",
      "src/b.ts",
      "src/deep",
      "src/sub",
    ]);
    expect(entries.find((e) => e.path === "src")?.isDir).toBe(true);
    expect(entries.find((e) => e.path === "keep.log")?.size).toBe(7);
  });
});

describe("search tools", () => {
  const ctx = { toolCallId: "t" };
  it("grep formats like ripgrep and notes truncation", async () => {
    const out = await grepTool().executor({ pattern: "needle", path: "src", max_results: 2 }, js, ctx);
    const text = typeof out === "string" ? out : out.output;
    expect(text).toBe(
      "src/a.ts:4:const needle = 2;\nsrc/b.ts:3:needle three\n\n[Results truncated: showing 2 of 5 matching lines. Narrow the pattern, path or glob_filter, or raise max_results.]",
    );
  });

  it("grep offers output modes when asked", async () => {
    expect(grepTool().definition.parameters).not.toHaveProperty("properties.output_mode");
    const out = await grepTool({ outputModes: true }).executor(
      { pattern: "needle", output_mode: "count", glob_filter: "*.ts" },
      js,
      ctx,
    );
    // As with ripgrep, a glob filter is a whitelist that wins over .gitignore for files.
    expect(typeof out === "string" ? out : out.output).toBe(
      "src/a.ts:1\nsrc/b.ts:2\nsrc/sub/ignored.ts:1\nsrc/sub/kept.ts:1",
    );
  });

  it("glob lists newest first", async () => {
    const out = await globTool().executor({ pattern: "src/**/*.ts" }, js, ctx);
    expect(typeof out === "string" ? out : out.output).toBe("src/b.ts\nsrc/a.ts\nsrc/sub/kept.ts");
  });

  it("list_dir draws a tree with sizes", async () => {
    const out = await listDirTool().executor({ path: "src", depth: 2 }, js, ctx);
    expect(typeof out === "string" ? out : out.output).toBe(
      "src/\n  a.ts (71 B)\n  b.ts (48 B)\n  deep/\n    c.py (34 B)\n  sub/\n    kept.ts (12 B)",
    );
  });
});
