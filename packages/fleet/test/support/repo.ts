import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Creates `<root>/repo`, a git repository on `main` with one commit holding a README; returns its path. */
export const createRepo = async (root: string): Promise<string> => {
  const repo = join(root, "repo");
  await mkdir(repo);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  await writeFile(join(repo, "README.md"), "a project\n");
  git("add", "-A");
  git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "init");
  return repo;
};
