import { existsSync } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { CodeIntelligence } from "../src/lsp/code-intelligence.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";
import { SERVERS_BIN } from "./support/lsp-project.js";

// A cloned repository's own programs do not run before the project is trusted: language servers
// come from PATH (outside the project) or settings, and the TypeScript the server loads is the one
// beside it, not the project's node_modules/typescript. Every planted program below writes a
// marker file when it runs; trusting the project shows the plant works.

const here = path.dirname(new URL(import.meta.url).pathname);
let base: string;
let project: string;
let marker: string;

/** A script that records that it ran, then exits. */
const plant = async (file: string, name: string) => {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\necho ${name} >> '${marker}'\nexit 1\n`);
  await chmod(file, 0o755);
};

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "lsp-untrusted-"));
  project = path.join(base, "project");
  marker = path.join(base, "ran.txt");
  await cp(path.join(here, "fixtures", "lsp", "typescript"), project, { recursive: true });
  await writeFile(path.join(project, "tool.py"), "def f(x: int) -> int:\n    return x\n");
  await plant(path.join(project, "node_modules", ".bin", "typescript-language-server"), "project-tls");
  await plant(path.join(project, "node_modules", ".bin", "pyright-langserver"), "project-pyright");
  await plant(path.join(project, ".venv", "bin", "typescript-language-server"), "project-path-tls");
  await mkdir(path.join(project, "node_modules", "typescript", "lib"), { recursive: true });
  await writeFile(
    path.join(project, "node_modules", "typescript", "lib", "tsserver.js"),
    `require("fs").appendFileSync(${JSON.stringify(marker)}, "project-tsserver\\n"); process.exit(1);\n`,
  );
  await writeFile(
    path.join(project, "node_modules", "typescript", "package.json"),
    JSON.stringify({ name: "typescript", version: "5.9.2" }),
  );
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** An environment whose PATH puts a folder inside the project first, then the real servers. */
const environment = () =>
  new LocalExecutionEnvironment({
    workingDirectory: project,
    baseEnv: {
      ...process.env,
      PATH: `${path.join(project, ".venv", "bin")}:${SERVERS_BIN}:${process.env.PATH ?? ""}`,
    },
  });

async function symbols(intelligence: CodeIntelligence, file: string): Promise<ToolOutput> {
  const tool = intelligence
    .tools()
    .find((t) => t.definition.name === "get_document_symbols") as RegisteredTool;
  return (await tool.executor({ path: file }, intelligence.environment, { toolCallId: "s" })) as ToolOutput;
}

const ran = async () =>
  existsSync(marker) ? (await import("node:fs/promises")).readFile(marker, "utf8") : "";

describe("language servers in an untrusted project", () => {
  it("the project's node_modules/.bin, a PATH folder inside it and its typescript never run", async () => {
    const intelligence = new CodeIntelligence({ environment: environment() });
    try {
      const result = await symbols(intelligence, "src/shape.ts");
      expect(await ran()).toBe("");
      // The server from PATH answers, with the TypeScript installed beside it.
      expect(result.isError, result.output).toBeFalsy();
      expect(result.output).toContain("BaseShape");
    } finally {
      await intelligence.shutdown();
    }
  }, 60_000);

  it("the Python server is not taken from the project either", async () => {
    const intelligence = new CodeIntelligence({ environment: environment() });
    try {
      await symbols(intelligence, "tool.py");
      expect(await ran()).not.toContain("project-pyright");
    } finally {
      await intelligence.shutdown();
    }
  }, 60_000);

  it("a server found only inside the project is reported as not run, naming the reason", async () => {
    const intelligence = new CodeIntelligence({
      environment: new LocalExecutionEnvironment({
        workingDirectory: project,
        baseEnv: { ...process.env, PATH: "/usr/bin:/bin" },
      }),
    });
    try {
      const result = await symbols(intelligence, "src/shape.ts");
      expect(result.output).toMatch(/not run because the project is not trusted/);
      expect(await ran()).toBe("");
    } finally {
      await intelligence.shutdown();
    }
  }, 60_000);

  it("a configured path into the project is not run before trust", async () => {
    const intelligence = new CodeIntelligence({
      environment: environment(),
      builtinServers: false,
      servers: [{ id: "ts", command: "./node_modules/.bin/typescript-language-server", extensions: [".ts"] }],
    });
    try {
      const result = await symbols(intelligence, "src/shape.ts");
      expect(result.output).toMatch(/No language server for \.ts: .* was not found/);
      expect(await ran()).toBe("");
    } finally {
      await intelligence.shutdown();
    }
  }, 60_000);

  it("once the host says the project is trusted, its own copy is used (the plant is real)", async () => {
    const intelligence = new CodeIntelligence({ environment: environment(), projectTrusted: true });
    try {
      await symbols(intelligence, "src/shape.ts");
      expect(await ran()).toContain("project-tls");
    } finally {
      await intelligence.shutdown();
      await rm(marker, { force: true });
    }
  }, 60_000);
});
