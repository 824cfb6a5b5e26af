import { spawn } from "node:child_process";
import { CommandError, RipgrepMissingError } from "./errors.js";
import { markRipgrepPresent, ripgrepAvailable } from "./grep-ripgrep.js";
import { ripgrepCommand } from "./ripgrep-binary.js";

/**
 * The files under `root` (or its sub-path `base`) that `rg --files` lists, as paths relative to
 * root: .gitignore honoured, hidden files skipped, as the JavaScript walk does. The caller
 * matches the glob: ripgrep's own --glob is a whitelist that would list ignored files too.
 * Throws RipgrepMissingError when rg cannot be started.
 */
export function ripgrepFiles(root: string, base: string, signal?: AbortSignal): Promise<string[]> {
  const args = ["--files", "--null", "--no-config", "--no-require-git"];
  if (base !== "") args.push("--", base);
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepCommand(), args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], signal });
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => chunks.push(d));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      if (stderr.length < 16_384) stderr += d;
    });
    child.on("spawn", markRipgrepPresent);
    child.on("error", (err) => {
      if ((err as Error).name === "AbortError") resolve([]);
      else if ((err as NodeJS.ErrnoException).code === "ENOENT" && !ripgrepAvailable())
        reject(new RipgrepMissingError(err));
      else reject(new CommandError("rg", `Could not run ripgrep: ${err.message}`, { cause: err }));
    });
    child.on("close", (code) => {
      // 1: nothing listed. Unreadable directories are skipped with a warning, as the walk does.
      if (code !== null && code > 1 && !/No such file|Permission denied/i.test(stderr)) {
        reject(new CommandError("rg", `ripgrep failed (exit ${code}): ${stderr.trim()}`));
        return;
      }
      const out = Buffer.concat(chunks).toString("utf8");
      resolve(
        out
          .split("\0")
          .filter((p) => p !== "")
          .map((p) => (p.startsWith("./") ? p.slice(2) : p)),
      );
    });
  });
}
