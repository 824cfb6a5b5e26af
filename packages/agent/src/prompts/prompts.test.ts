import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeEnvironment } from "../testing/index.js";
import { formatEnvironmentBlock } from "./environment-block.js";
import { captureGitSnapshot } from "./git-snapshot.js";
import { discoverProjectDocs, PROJECT_DOCS_TRUNCATION_MARKER } from "./project-docs.js";
import { assembleSystemPrompt } from "./system-prompt.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "attractor-prompts-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: root });

describe("project docs", () => {
  it("walks from the git root to the working dir, root first, AGENTS.md, CLAUDE.md and GEMINI.md for any profile", async () => {
    git("init", "-q", "-b", "main");
    const sub = path.join(root, "pkg", "app");
    await mkdir(sub, { recursive: true });
    await writeFile(path.join(root, "AGENTS.md"), "root agents");
    await writeFile(path.join(root, "CLAUDE.md"), "root claude");
    await writeFile(path.join(root, "GEMINI.md"), "root gemini");
    await writeFile(path.join(root, "pkg", "AGENTS.md"), "pkg agents");
    await writeFile(path.join(sub, "CLAUDE.md"), "app claude");
    const env = nodeEnvironment(sub);
    const snap = await captureGitSnapshot(env);
    const result = await discoverProjectDocs(env, { providerFiles: [], gitRoot: snap!.root });
    expect(result.docs.map((d) => d.content)).toEqual([
      "root agents",
      "root claude",
      "root gemini",
      "pkg agents",
      "app claude",
    ]);
    expect(result.truncated).toBe(false);
  });

  it("reads a file reached twice through a symlink once, and user-level files first", async () => {
    await writeFile(path.join(root, "AGENTS.md"), "shared instructions");
    await symlink("AGENTS.md", path.join(root, "CLAUDE.md"));
    const userDir = await mkdtemp(path.join(tmpdir(), "user-docs-"));
    await writeFile(path.join(userDir, "AGENTS.md"), "my personal rules");
    try {
      const result = await discoverProjectDocs(nodeEnvironment(root), {
        providerFiles: ["CLAUDE.md"],
        userFiles: [path.join(userDir, "AGENTS.md"), path.join(userDir, "missing.md")],
      });
      expect(result.docs.map((d) => [path.basename(d.path), d.content])).toEqual([
        ["AGENTS.md", "my personal rules"],
        ["AGENTS.md", "shared instructions"],
      ]);
    } finally {
      await rm(userDir, { recursive: true, force: true });
    }
  });

  it("uses only the working dir outside a repository and truncates at 32 KB with the marker", async () => {
    await writeFile(path.join(root, "AGENTS.md"), "x".repeat(40_000));
    const result = await discoverProjectDocs(nodeEnvironment(root), { providerFiles: [] });
    expect(result.truncated).toBe(true);
    expect(result.text.endsWith(PROJECT_DOCS_TRUNCATION_MARKER)).toBe(true);
    expect(Buffer.byteLength(result.text) - PROJECT_DOCS_TRUNCATION_MARKER.length - 1).toBeLessThanOrEqual(
      32 * 1024,
    );
  });
});

describe("git snapshot", () => {
  it("reports branch, status counts and recent commits; nothing outside a repository", async () => {
    expect(await captureGitSnapshot(nodeEnvironment(root))).toBeUndefined();
    git("init", "-q", "-b", "feature");
    await writeFile(path.join(root, "a.txt"), "1");
    git("add", "a.txt");
    git("commit", "-q", "-m", "first commit");
    await writeFile(path.join(root, "a.txt"), "2");
    await writeFile(path.join(root, "b.txt"), "new");
    const snap = await captureGitSnapshot(nodeEnvironment(root));
    expect(snap).toMatchObject({ branch: "feature", modified: 1, untracked: 1, staged: 0 });
    expect(snap?.recentCommits[0]).toMatch(/first commit$/);
    // A rename, a new file staged, a change staged and changed again (both columns of
    // `git status --short`): three staged, one modified.
    git("add", "a.txt", "b.txt");
    git("commit", "-q", "-m", "second commit");
    git("mv", "b.txt", "c.txt");
    await writeFile(path.join(root, "d.txt"), "new");
    git("add", "d.txt");
    await writeFile(path.join(root, "a.txt"), "3");
    git("add", "a.txt");
    await writeFile(path.join(root, "a.txt"), "4");
    expect(await captureGitSnapshot(nodeEnvironment(root))).toMatchObject({
      branch: "feature",
      staged: 3,
      modified: 1,
      untracked: 0,
      recentCommits: [expect.stringMatching(/second commit$/), expect.stringMatching(/first commit$/)],
    });
  });

  it("a detached HEAD has no branch; a branch with no commits yet has its name", async () => {
    git("init", "-q", "-b", "main");
    const unborn = await captureGitSnapshot(nodeEnvironment(root));
    expect(unborn).toMatchObject({ branch: "main", staged: 0, modified: 0, untracked: 0, recentCommits: [] });
    await writeFile(path.join(root, "a.txt"), "1");
    git("add", "a.txt");
    git("commit", "-q", "-m", "only commit");
    git("checkout", "-q", "--detach");
    const detached = await captureGitSnapshot(nodeEnvironment(root));
    expect(detached).toBeDefined();
    expect(detached?.branch).toBeUndefined();
    expect(detached?.recentCommits).toHaveLength(1);
  });
});

describe("system prompt", () => {
  it("orders the layers base, environment, git, tools, project docs, user instructions", () => {
    const env = formatEnvironmentBlock({
      workingDirectory: "/w",
      isGitRepository: true,
      gitBranch: "main",
      platform: "linux",
      osVersion: "6.1",
      date: "2025-01-02",
      model: "Model X",
      knowledgeCutoff: "2024-06",
    });
    expect(env).toBe(
      "<environment>\nWorking directory: /w\nIs git repository: true\nGit branch: main\nPlatform: linux\nOS version: 6.1\nToday's date: 2025-01-02\nModel: Model X\nKnowledge cutoff: 2024-06\n</environment>",
    );
    const prompt = assembleSystemPrompt({
      base: "BASE",
      environment: env,
      git: "<git_status>G</git_status>",
      tools: [{ name: "read_file", description: "Read a file.\nMore.", parameters: { type: "object" } }],
      projectDocs: "DOCS",
      userInstructions: "USER",
    });
    const at = (s: string) => prompt.indexOf(s);
    expect(at("BASE")).toBe(0);
    expect(at("BASE") < at("<environment>")).toBe(true);
    expect(at("<environment>") < at("<git_status>")).toBe(true);
    expect(at("<git_status>") < at("- read_file: Read a file.")).toBe(true);
    expect(at("read_file") < at("DOCS")).toBe(true);
    expect(prompt.trimEnd().endsWith("USER")).toBe(true);
  });
});
