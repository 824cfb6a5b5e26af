// Makes the V8 code cache the package ships beside the headless bundle (dist/bundle/code-cache), so
// that a first run (a new container, CI job or fleet task, with no cache of its own) starts from
// compiled code too. Node 20 has no way to compile ahead other than running the code: the bundle
// runs short headless tasks against a scripted model on 127.0.0.1 (Anthropic, OpenAI, then Gemini, each
// reading, searching, editing, running a command and answering), with a cache folder of its own,
// and the entries they leave are copied with a manifest naming the V8 that made them (its version
// and flags: v8.cachedDataVersionTag()) and the files' sizes. The loader uses an entry only for
// that V8 and that build (see src/launch/code-cache.ts), and V8 checks it again. When this fails,
// the build goes on without one: runs compile as before and cache their own.
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { editCall, startScriptedModel } from "../dist/testing/scripted-provider.js";

/** The steps of one training task for `provider`, in a project holding src/math.js. */
const stepsFor = (provider) => [
  { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
  { calls: [{ name: "grep", args: { pattern: "add\\(", path: "." } }] },
  { calls: [editCall(provider, "src/math.js", "  return a - b;", "  return a + b;")] },
  { calls: [{ name: "shell", args: { command: "node -e \"require('./src/math.js')\"" } }] },
  { calls: [{ name: "write_file", args: { file_path: "NOTES.md", content: "add() fixed.\n" } }] },
  { text: "Fixed add() and wrote a note." },
];

/** Runs the training tasks and writes `bundleDir`/code-cache; returns why not when it could not. */
export async function shipCodeCache(bundleDir) {
  const outs = [join(bundleDir, "code-cache"), join(bundleDir, "vendor", "code-cache")];
  for (const out of outs) rmSync(out, { recursive: true, force: true });
  const root = mkdtempSync(join(tmpdir(), "attractor-code-cache-build-"));
  try {
    const cache = join(root, "cache");
    const env = {
      PATH: process.env.PATH,
      LANG: "C.UTF-8",
      HOME: join(root, "home"),
      XDG_CACHE_HOME: cache,
      ATTRACTOR_HOME: join(root, "attractor-home"),
    };
    mkdirSync(env.ATTRACTOR_HOME, { recursive: true });
    writeFileSync(join(env.ATTRACTOR_HOME, "settings.json"), JSON.stringify({ lsp: { enabled: false } }));
    // The second run reads what the first cached and writes it again with what it compiled more.
    // Gemini's SDK is a vendor file of its own (over a megabyte): without its run, a first Gemini
    // run would compile it.
    for (const [provider, refresh] of [
      ["anthropic", false],
      ["openai", true],
      ["gemini", true],
    ]) {
      const project = join(root, `project-${provider}`);
      mkdirSync(join(project, "src"), { recursive: true });
      writeFileSync(
        join(project, "src", "math.js"),
        "function add(a, b) {\n  return a - b;\n}\nmodule.exports = { add };\n",
      );
      const model = await startScriptedModel(provider, stepsFor(provider));
      try {
        const code = await new Promise((resolve) => {
          const child = spawn(
            process.execPath,
            [
              join(bundleDir, "attractor.js"),
              "-p",
              "fix add()",
              "--mode",
              "yolo",
              "--sandbox",
              "danger-full-access",
            ],
            {
              cwd: project,
              env: { ...env, ...model.env(), ...(refresh && { ATTRACTOR_CODE_CACHE: "refresh" }) },
              stdio: "ignore",
            },
          );
          const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
          child.on("error", () => resolve(-1));
          child.on("close", (status) => {
            clearTimeout(timer);
            resolve(status);
          });
        });
        if (code !== 0) return `the ${provider} training run exited ${code}`;
        if (model.seen().length !== 6)
          return `the ${provider} training run made ${model.seen().length} of 6 requests`;
      } finally {
        await model.close();
      }
    }
    // The tag of a Node started as the runs were (NODE_OPTIONS may carry V8 flags).
    const tag = spawnSync(process.execPath, ["-p", "require('node:v8').cachedDataVersionTag()"], {
      env,
      encoding: "utf8",
    });
    const versionTag = Number(tag.stdout);
    if (tag.status !== 0 || !Number.isInteger(versionTag)) return "the V8 version tag could not be read";
    const made = join(cache, "attractor", "code-cache");
    // One folder beside each cached file (the bundle's, the vendor files'), as the loader looks.
    const folders = new Map();
    for (const entry of readdirSync(made)) {
      // <file>-<size>-<mtime>-<node>-<arch>.v8, of the files in the bundle folder or its vendor folder.
      const name = /^(.+?\.c?js)-\d+-\d+-/.exec(entry)?.[1];
      if (name === undefined || entry.endsWith(".tmp")) continue;
      const dir = [bundleDir, join(bundleDir, "vendor")].find((d) => existsSync(join(d, name)));
      if (dir === undefined) continue;
      const folder = join(dir, "code-cache");
      if (!folders.has(folder)) folders.set(folder, {});
      folders.get(folder)[name] = readFileSync(join(dir, name), "utf8").length;
      mkdirSync(folder, { recursive: true });
      copyFileSync(join(made, entry), join(folder, `${name}.v8`));
    }
    if (folders.size === 0) return "the training runs cached nothing";
    for (const [folder, files] of folders)
      writeFileSync(join(folder, "manifest.json"), JSON.stringify({ versionTag, files }, null, 2));
    return undefined;
  } catch (error) {
    for (const out of outs) rmSync(out, { recursive: true, force: true });
    return error instanceof Error ? error.message : String(error);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
