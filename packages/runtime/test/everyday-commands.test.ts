// No new prompts in daily work: fifty commands of an ordinary session (build, test, git status,
// diff, log, show, branch, grep and rg, ls/cat/head/wc, package scripts already allowed) run
// without asking in normal and auto-edit mode, with the allow rules a project typically has for
// its package scripts. Before the option tables and the critical tier by effect: 0 of 50 asked
// with these rules (6 without them, the package scripts); after: the same.
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPermissionPolicy, type PermissionPolicy } from "../src/permissions/index.js";

/** The everyday commands (bench/permissions.mjs times the same list). */
const EVERYDAY_COMMANDS: readonly string[] = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "fixtures", "everyday-commands.json"), "utf8"),
);

/** The package scripts a project allows in its settings. */
const PACKAGE_SCRIPT_RULES = ["Bash(npm test)", "Bash(npm run:*)", "Bash(npx vitest:*)", "Bash(npx tsc:*)"];

let dir: string;
const policies = new Map<string, PermissionPolicy>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-everyday-"));
  const root = join(dir, "project");
  await mkdir(join(root, "src"), { recursive: true });
  await writeFile(join(root, "src", "a.ts"), "export {};\n");
  await writeFile(join(root, "package.json"), "{}\n");
  for (const mode of ["normal", "auto-edit"] as const)
    policies.set(
      mode,
      createPermissionPolicy({ mode, projectRoot: root, rules: { allow: PACKAGE_SCRIPT_RULES } }),
    );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const shell = (command: string) => ({ callId: `e${n++}`, toolName: "shell", arguments: { command } });

describe("everyday commands run without asking", () => {
  it("the list has fifty commands", () => {
    expect(new Set(EVERYDAY_COMMANDS).size).toBe(50);
  });
  for (const mode of ["normal", "auto-edit"] as const) {
    for (const command of EVERYDAY_COMMANDS) {
      it(`${mode}: ${command}`, async () => {
        const outcome = await (policies.get(mode) as PermissionPolicy).evaluate(shell(command));
        expect(outcome.behavior, outcome.behavior === "ask" ? outcome.request.reason : "").toBe("allow");
      });
    }
  }
});
