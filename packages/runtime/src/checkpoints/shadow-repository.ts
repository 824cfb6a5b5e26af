import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runGit } from "./git-runner.js";

/**
 * Creates the shadow repository `gitDir` of the project `root` unless it exists: a bare git
 * directory (no hooks, no templates) used with the project as its work tree.
 */
export async function initShadowRepository(gitDir: string, root: string): Promise<void> {
  try {
    await readFile(join(gitDir, "HEAD"));
    return;
  } catch {}
  // Built aside and renamed into place: two processes starting in a new project at once
  // must not initialise the same directory (one rename wins, the other uses its result).
  await mkdir(dirname(gitDir), { recursive: true });
  const staging = await mkdtemp(`${gitDir}.new-`);
  try {
    await runGit(undefined, root, ["init", "--quiet", "--bare", "--template=", staging]);
    // `git config` is a process of its own, on the way to the first checkpoint.
    if (!(await markNotBare(staging))) await runGit(staging, root, ["config", "core.bare", "false"]);
    await writeFile(join(staging, "project"), `${root}\n`);
    await rename(staging, gitDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const created = await readFile(join(gitDir, "HEAD")).then(
      () => true,
      () => false,
    );
    if (!created) throw error;
  }
}

/**
 * Sets core.bare to false in the config `git init --bare` just wrote, by rewriting its one
 * `bare = true` line of [core]; false (nothing written) when the file is not as expected.
 */
async function markNotBare(gitDir: string): Promise<boolean> {
  const file = join(gitDir, "config");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return false;
  }
  const lines = text.split("\n");
  let section = "";
  const bare: number[] = [];
  for (const [i, line] of lines.entries()) {
    const header = /^\s*\[([^\]]*)\]/.exec(line);
    if (header) section = (header[1] ?? "").trim().toLowerCase();
    else if (section === "core" && /^\s*bare\s*=/i.test(line)) bare.push(i);
  }
  const at = bare[0];
  if (bare.length !== 1 || at === undefined || !/^\s*bare\s*=\s*true\s*$/i.test(lines[at] ?? ""))
    return false;
  lines[at] = (lines[at] as string).replace(/true(\s*)$/i, "false$1");
  await writeFile(file, lines.join("\n"));
  return true;
}
