import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeEnvironment } from "../testing/index.js";
import { importReferences } from "./doc-imports.js";
import { discoverProjectDocs } from "./project-docs.js";

let root: string;
let project: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "attractor-imports-"));
  project = path.join(root, "project");
  home = path.join(root, "home");
  await mkdir(path.join(project, "docs"), { recursive: true });
  await mkdir(home, { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const load = () =>
  discoverProjectDocs(nodeEnvironment(project), { providerFiles: [], gitRoot: project, homeDir: home });

describe("@path imports in instruction files", () => {
  it("finds references in prose only: not in code spans, fenced blocks or e-mail addresses", () => {
    const text = [
      "See @docs/style.md and @~/notes.md.",
      "Mail me at dev@example.com; run `npm i @scope/pkg` first.",
      "```",
      "@docs/inside-fence.md",
      "```",
      "@README.md",
    ].join("\n");
    expect(importReferences(text)).toEqual(["docs/style.md", "~/notes.md", "README.md"]);
  });

  it("reads relative and ~ imports after their importer, recursively, up to five deep", async () => {
    await writeFile(path.join(project, "CLAUDE.md"), "Project rules. See @docs/a.md and @~/personal.md");
    await writeFile(path.join(home, "personal.md"), "personal preferences");
    // a.md → b.md → ... → f.md is six hops from CLAUDE.md: f.md (the sixth) is not read.
    const chain = ["a", "b", "c", "d", "e", "f", "g"];
    for (let i = 0; i < chain.length - 1; i++)
      await writeFile(
        path.join(project, "docs", `${chain[i]}.md`),
        `level ${chain[i]} @./${chain[i + 1]}.md`,
      );
    await writeFile(path.join(project, "docs", "g.md"), "level g");
    const result = await load();
    const names = result.docs.map((d) => path.relative(root, d.path));
    expect(names).toEqual([
      "project/CLAUDE.md",
      "project/docs/a.md",
      "project/docs/b.md",
      "project/docs/c.md",
      "project/docs/d.md",
      "project/docs/e.md",
      "home/personal.md",
    ]);
    expect(result.text).toContain("personal preferences");
  });

  it("never reads an import outside the project and the home directory", async () => {
    await writeFile(path.join(root, "outside.md"), "SECRET OUTSIDE");
    await writeFile(path.join(project, "AGENTS.md"), "@../outside.md @/etc/hostname");
    const result = await load();
    expect(result.docs.map((d) => d.path)).toEqual([path.join(project, "AGENTS.md")]);
    expect(result.text).not.toContain("SECRET OUTSIDE");
  });

  it("reads CLAUDE.local.md beside CLAUDE.md", async () => {
    await writeFile(path.join(project, "CLAUDE.md"), "shared");
    await writeFile(path.join(project, "CLAUDE.local.md"), "mine only");
    expect((await load()).docs.map((d) => d.content)).toEqual(["shared", "mine only"]);
  });
});
