#!/usr/bin/env node
// The `attractor` command as npm links it. npm links a workspace's bin when it installs, which in a
// fresh clone is before the build has produced the bundle, so the bin is this small committed file
// that loads the bundle and says what to do when it is missing.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const bundle = new URL("../dist/bundle/attractor.js", import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write(
    `attractor: the command is not built (${fileURLToPath(bundle)} is missing).\n` +
      "Run `npm run build` in the attractor repository, then try again.\n",
  );
  process.exit(1);
}
await import(bundle.href);
