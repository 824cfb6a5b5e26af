// `npm run check:install`: what a newcomer does with the tarballs, for real. Packs every package
// (prepack builds each), installs the tarballs together with `npm install` into an empty folder
// (their own dependencies come from the npm registry, so this needs it: it is not part of
// `npm test`, whose packed-packages test does the same without a registry), then type-checks a
// strict program importing the libraries (the runtime's bash parser included), without skipLibCheck, and runs it.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "attractor-check-install-"));
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: "inherit" });
try {
  const tarballs = join(scratch, "tarballs");
  run(process.execPath, [join(root, "scripts", "pack.mjs"), tarballs], root);
  const project = join(scratch, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "embedder", private: true, type: "module" }),
  );
  const files = readdirSync(tarballs).filter((f) => /^attractor-(llm|agent|runtime|fleet)-.*\.tgz$/.test(f));
  run("npm", ["install", "--no-audit", "--no-fund", ...files.map((f) => join(tarballs, f))], project);
  run("npm", ["install", "--no-audit", "--no-fund", "--save-dev", "typescript"], project);
  writeFileSync(
    join(project, "main.ts"),
    `import { Client, tool } from "@attractor/llm";
import { createAnthropicProfile, defineTool, LocalExecutionEnvironment, Session, Type } from "@attractor/agent";
import { parseTasks } from "@attractor/fleet";
import { assessShellCommand } from "@attractor/runtime";

const count = defineTool({
  name: "count",
  description: "Counts a path's characters.",
  parameters: Type.Object({ path: Type.String() }),
  execute: async ({ path }) => String(path.length),
});
const echo = tool({ name: "echo", description: "Echoes.", parameters: { type: "object" }, execute: async () => "ok" });
const session = new Session({
  profile: createAnthropicProfile("claude-sonnet-4-5"),
  environment: new LocalExecutionEnvironment({ workingDirectory: process.cwd() }),
  client: new Client({ providers: {} }),
  tools: [count, echo],
});
const line = await assessShellCommand("ls | sort", { cwd: process.cwd(), projectRoot: process.cwd() });
console.log(session.id.length > 0, typeof parseTasks, line.tier);
await session.close();
`,
  );
  // Strict, skipLibCheck off (tsc's default): every declaration file the program reaches is checked.
  run(
    "npx",
    ["--no-install", "tsc", "--strict", "--module", "nodenext", "--target", "es2023", "main.ts"],
    project,
  );
  run(process.execPath, ["main.js"], project);
  console.log("check:install: the tarballs installed, type-checked strictly and ran");
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
