import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources, so a change is tested without a build step.
    alias: {
      "@attractor/llm": src("llm"),
      "@attractor/agent": src("agent"),
      "@attractor/fleet": src("fleet"),
    },
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/src/**/*.test.tsx",
      "packages/*/test/**/*.test.ts",
      "packages/*/test/**/*.test.tsx",
    ],
    testTimeout: 20_000,
    // CI machines have two cores shared by parallel test files with real servers and processes;
    // a test failing twice in a row there is a real failure, once may be the machine's load.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 20_000,
  },
});
