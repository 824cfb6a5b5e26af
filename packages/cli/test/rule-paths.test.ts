import { homedir } from "node:os";
import { pathPatternMatches, pathRulePattern, toPermissionMode } from "@attractor/runtime/permissions";
import { describe, expect, it } from "vitest";
import { splitRuleList } from "../src/launch/args.js";
import { mergePromptAndPipe } from "../src/launch/prompt-input.js";

describe("rule paths read as Claude Code reads them", () => {
  const cases: [pattern: string, relative: string | undefined, absolute: string, matches: boolean][] = [
    ["/src/**", "src/a/b.ts", "/p/src/a/b.ts", true],
    ["/src/**", undefined, "/src/a/b.ts", false],
    ["src/**", "src/a.ts", "/p/src/a.ts", true],
    ["./src/*.ts", "src/a.ts", "/p/src/a.ts", true],
    ["//etc/hosts", undefined, "/etc/hosts", true],
    ["//etc/**", "etc/hosts", "/p/etc/hosts", false],
    ["~/.config/**", undefined, `${homedir()}/.config/x`, true],
    ["**/.env", "a/.env", "/p/a/.env", true],
  ];
  it.each(cases)("%s against %s (%s) → %s", (pattern, relative, absolute, matches) => {
    expect(pathPatternMatches(pattern, relative, absolute)).toBe(matches);
  });

  it("proposes `//absolute` for a file outside the project, and the rule matches it back", () => {
    const pattern = pathRulePattern(undefined, "/tmp/out (1).txt");
    expect(pattern).toBe("//tmp/out \\(1\\).txt");
    expect(pathPatternMatches(pattern, undefined, "/tmp/out (1).txt")).toBe(true);
    expect(pathRulePattern("src/a.ts", "/p/src/a.ts")).toBe("src/a.ts");
  });
});

describe("flag values as other agents take them", () => {
  it.each([
    ["Bash(git diff:*),Edit", ["Bash(git diff:*)", "Edit"]],
    ["Bash(git log --oneline:*) Read  Write", ["Bash(git log --oneline:*)", "Read", "Write"]],
    ["mcp__github,Bash(npm run test:*)", ["mcp__github", "Bash(npm run test:*)"]],
  ])("splits %j", (text, rules) => {
    expect(splitRuleList(text)).toEqual(rules);
  });

  it.each([
    ["default", "normal"],
    ["acceptEdits", "auto-edit"],
    ["bypassPermissions", "yolo"],
    ["auto_edit", "auto-edit"],
    ["plan", "plan"],
    ["yolo", "yolo"],
    ["toString", undefined],
    ["reckless", undefined],
  ])("mode %s is %s", (name, mode) => {
    expect(toPermissionMode(name)).toBe(mode);
  });

  it("merges a prompt and piped text; either alone stands as it is", () => {
    expect(mergePromptAndPipe("Explain", "a\nb\n")).toBe("Explain\n\n```\na\nb\n```");
    expect(mergePromptAndPipe(undefined, "  task from a pipe \n")).toBe("task from a pipe");
    expect(mergePromptAndPipe("only the argument", "   \n")).toBe("only the argument");
    expect(mergePromptAndPipe("x", "````\n")).toBe("x\n\n`````\n````\n`````");
  });
});
