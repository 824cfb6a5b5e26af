import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string, entry = "index") =>
  fileURLToPath(new URL(`./packages/${pkg}/src/${entry}.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources, so a change is tested without a build step.
    // Exact matches, so a package's subpath entries (`/testing`) are not taken for its root.
    alias: [
      { find: /^@attractor\/llm$/, replacement: src("llm") },
      { find: /^@attractor\/llm\/testing$/, replacement: src("llm", "testing/index") },
      { find: /^@attractor\/agent$/, replacement: src("agent") },
      { find: /^@attractor\/agent\/internals$/, replacement: src("agent", "internals") },
      { find: /^@attractor\/agent\/testing$/, replacement: src("agent", "testing/index") },
      { find: /^@attractor\/runtime$/, replacement: src("runtime") },
      { find: /^@attractor\/runtime\/names$/, replacement: src("runtime", "names") },
      { find: /^@attractor\/runtime\/config$/, replacement: src("runtime", "config/index") },
      { find: /^@attractor\/runtime\/permissions$/, replacement: src("runtime", "permissions/index") },
      { find: /^@attractor\/runtime\/hooks$/, replacement: src("runtime", "hooks/index") },
      { find: /^@attractor\/runtime\/checkpoints$/, replacement: src("runtime", "checkpoints/index") },
      { find: /^@attractor\/runtime\/store$/, replacement: src("runtime", "store/index") },
      { find: /^@attractor\/runtime\/customization$/, replacement: src("runtime", "customization/index") },
      { find: /^@attractor\/runtime\/mcp$/, replacement: src("runtime", "mcp/index") },
      { find: /^@attractor\/fleet$/, replacement: src("fleet") },
      { find: /^@attractor\/cli\/testing$/, replacement: src("cli", "testing/index") },
    ],
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/src/**/*.test.tsx",
      "packages/*/test/**/*.test.ts",
      "packages/*/test/**/*.test.tsx",
      "test/**/*.test.ts",
    ],
    testTimeout: 20_000,
    // CI machines have two cores shared by parallel test files with real servers and processes;
    // a test failing twice in a row there is a real failure, once may be the machine's load.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 20_000,
  },
});
