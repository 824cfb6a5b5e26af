// Rule matching stays linear whatever the pattern (a rule from a settings file must not stall the
// process), and the linear path-glob matcher agrees with picomatch on ordinary patterns.
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlob } from "../src/permissions/glob-matcher.js";
import { commandPatternMatches, parseRule, RuleSyntaxError } from "../src/permissions/index.js";

const PATTERNS = [
  "src/**",
  "src/**/*",
  "**/*.ts",
  "src/*.ts",
  "*.md",
  "a/**/b",
  "**/.env",
  "**/.env.*",
  "src/{a,b}.ts",
  "src/{a,deep/*}.ts",
  "src/[ab].ts",
  "src/[a-c].ts",
  "docs/?.md",
  "**",
  "*",
  "src/**/x/*.js",
  ".github/**",
  "certs/*.pem",
  "**/node_modules/**",
];
const PATHS = [
  "src/a.ts",
  "src/b.ts",
  "src/c.ts",
  "src/d.ts",
  "src/deep/a.ts",
  "src/deep/er/a.ts",
  "src",
  "a/b",
  "a/x/y/b",
  "a/bb",
  ".env",
  ".env.local",
  "config/.env",
  "config/.env.prod",
  "docs/a.md",
  "docs/ab.md",
  "README.md",
  "src/x/y.js",
  "src/deep/x/y.js",
  ".github/workflows/ci.yml",
  "certs/server.pem",
  "certs/sub/server.pem",
  "node_modules/x/index.js",
  "pkg/node_modules/x/y.js",
];

describe("path globs", () => {
  for (const pattern of PATTERNS) {
    it(`${pattern} matches what picomatch matches`, () => {
      const ours = compileGlob(pattern);
      const theirs = picomatch(pattern, { dot: true });
      const got = PATHS.filter((p) => ours(p));
      expect(got).toEqual(PATHS.filter((p) => theirs(p)));
    });
  }

  it("matches a pattern that makes a backtracking matcher explode, on a long path", () => {
    const pattern = `${Array(40).fill("a").join("*")}*c`;
    expect(compileGlob(pattern)("a".repeat(20_000))).toBe(false);
    expect(compileGlob(pattern)(`${"a".repeat(20_000)}c`)).toBe(true);
    expect(compileGlob("**/**/**/**/**/**/**/**/x")(`${"a/".repeat(5_000)}y`)).toBe(false);
  });

  it("reads [!…] as POSIX does: any character but those", () => {
    expect(["src/a.ts", "src/b.ts"].filter(compileGlob("src/[!a].ts"))).toEqual(["src/b.ts"]);
  });

  it("refuses brace patterns with too many alternatives", () => {
    expect(() => parseRule(`edit(${"{a,b}".repeat(10)})`)).toThrow(RuleSyntaxError);
  });
});

describe("command patterns", () => {
  const rows: readonly [pattern: string, text: string, matches: boolean][] = [
    ["npm test:*", "npm test", true],
    ["npm test:*", "npm test -- --watch", true],
    ["npm test:*", "npm testx", false],
    ["npm test", "npm test", true],
    ["npm test", "npm test x", false],
    ["git * --oneline", "git log --oneline", true],
    ["git * --oneline", "git log --oneline -5", false],
    ["*build*", "npm run build:prod", true],
    ["a*b*c", "abc", true],
    ["a*b*c", "ab", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["x*y*x", "xyx", true],
    ["x*y*x", "xy", false],
    ["*", "", true],
  ];
  for (const [pattern, text, matches] of rows) {
    it(`${JSON.stringify(pattern)} ${matches ? "matches" : "does not match"} ${JSON.stringify(text)}`, () => {
      expect(commandPatternMatches(pattern, text)).toBe(matches);
    });
  }

  it("matches e*a*a*…*c (78 s per match before) against a long command", () => {
    const pattern = `e${"*a".repeat(60)}*c`;
    expect(commandPatternMatches(pattern, `e${"a".repeat(50_000)}`)).toBe(false);
    expect(commandPatternMatches(pattern, `e${"a".repeat(50_000)}c`)).toBe(true);
  });

  it("refuses patterns longer than the cap", () => {
    expect(() => parseRule(`shell(${"a*".repeat(600)})`)).toThrow(/longer than 1024/);
    expect(parseRule(`shell(${"a*".repeat(100)})`).pattern).toBeDefined();
  });
});
