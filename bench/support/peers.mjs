// Peer coding agents the benchmarks compare against, installed on demand with npm into
// bench/.peers (git-ignored), never into the workspace's own dependencies.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PEERS = join(dirname(fileURLToPath(import.meta.url)), "..", ".peers");

/**
 * The absolute path of `bin` (a script inside package `name`), installing `name@version` into
 * bench/.peers first when absent; undefined (with the reason printed) when the install fails.
 */
export function peerScript(name, version, bin) {
  const root = join(PEERS, "node_modules", name);
  const script = join(root, bin);
  const installed = () => {
    try {
      return JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version === version;
    } catch {
      return false;
    }
  };
  if (!installed() || !existsSync(script)) {
    mkdirSync(PEERS, { recursive: true });
    console.log(`installing ${name}@${version} into bench/.peers …`);
    const r = spawnSync(
      "npm",
      ["install", "--prefix", PEERS, "--no-audit", "--no-fund", `${name}@${version}`],
      {
        encoding: "utf8",
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    if (r.status !== 0 || !existsSync(script)) {
      console.log(
        `skipped ${name}: npm install failed (${(r.stderr ?? r.error?.message ?? "").trim().split("\n").pop()})`,
      );
      return undefined;
    }
  }
  return script;
}
