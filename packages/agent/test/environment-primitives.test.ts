// environmentFromPrimitives over the real file system answers as LocalExecutionEnvironment does:
// the same windows, listings, searches and globs, from five primitives.
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  type EnvironmentPrimitives,
  type ExecutionEnvironment,
  environmentFromPrimitives,
  FileNotFoundError,
  LocalExecutionEnvironment,
} from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
let local: ExecutionEnvironment;
let derived: ExecutionEnvironment;

function fsPrimitives(root: string): EnvironmentPrimitives {
  return {
    workingDirectory: root,
    read: async (path) => {
      try {
        return new Uint8Array(await readFile(path));
      } catch {
        throw new FileNotFoundError(path);
      }
    },
    write: async (path, content) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
    },
    stat: async (path) => {
      const s = await stat(path).catch(() => undefined);
      if (!s) return undefined;
      return {
        isFile: s.isFile(),
        isDirectory: s.isDirectory(),
        isSymbolicLink: false,
        size: s.size,
        mtimeMs: s.mtimeMs,
        mode: s.mode,
      };
    },
    readdir: async (path) =>
      (await readdir(path, { withFileTypes: true })).map((d) => ({
        name: d.name,
        isDirectory: d.isDirectory(),
      })),
    exec: (command, { workingDir, signal }) =>
      new Promise((resolve) => {
        execFile("bash", ["-c", command], { cwd: workingDir, signal }, (error, stdout, stderr) => {
          const code = (error as { code?: unknown } | null)?.code;
          resolve({ stdout, stderr, exitCode: error ? (typeof code === "number" ? code : null) : 0 });
        });
      }),
    remove: (path) => rm(path),
  };
}

beforeAll(async () => {
  ({ dir, remove } = await tempDir());
  const files: Record<string, string | Buffer> = {
    ".gitignore": "dist/\n*.log\n",
    "src/a.ts": "import x from 'y';\nconst needle = 1;\r\nexport { needle };\n",
    "src/b.ts": `${"needle ".repeat(400)}\nsecond\n`,
    "src/deep/c.py": "def needle():\n    return 'NEEDLE'\n",
    "src/.hidden.ts": "needle\n",
    "dist/out.js": "needle\n",
    "app.log": "needle\n",
    "bin.dat": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]),
    "README.md": "# needle\n",
  };
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  local = new LocalExecutionEnvironment({ workingDirectory: dir, grepEngine: "javascript" });
  derived = environmentFromPrimitives(fsPrimitives(dir));
});
afterAll(() => remove());

const withoutEngine = <T extends { engine?: unknown }>(r: T) => ({ ...r, engine: undefined });

describe("environmentFromPrimitives answers as the local environment", () => {
  it.each([[{}], [{ offset: 2, limit: 1 }], [{ offset: 1, limit: 2, maxLineLength: 10 }], [{ offset: 9 }]])(
    "reads windows of lines alike: %j",
    async (options) => {
      for (const file of ["src/a.ts", "src/b.ts"]) {
        expect(await derived.readFile(file, options)).toBe(await local.readFile(file, options));
      }
    },
  );

  it.each([
    ["needle", {}],
    ["needle", { outputMode: "files_with_matches" as const }],
    ["needle", { outputMode: "count" as const, caseInsensitive: true }],
    ["needle", { contextLines: 1 }],
    ["needle", { globFilter: "*.py", caseInsensitive: true }],
    ["needle", { maxResults: 2 }],
  ])("greps alike: %s %j", async (pattern, options) => {
    expect(withoutEngine(await derived.grep(pattern, ".", options))).toEqual(
      withoutEngine(await local.grep(pattern, ".", options)),
    );
  });

  it("globs and lists alike (ignored and hidden entries left out)", async () => {
    const sorted = (r: { paths: readonly string[] }) => [...r.paths].sort();
    expect(sorted(await derived.glob("**/*.ts"))).toEqual(sorted(await local.glob("**/*.ts")));
    expect(sorted(await derived.glob("*"))).toEqual(sorted(await local.glob("*")));
    expect(await derived.listDirectory(".", 3)).toEqual(await local.listDirectory(".", 3));
  });

  it("writes, deletes and reports missing files with the same errors", async () => {
    await derived.writeFile("new/dir/file.txt", "hello\n");
    expect(await local.readFile("new/dir/file.txt")).toBe("hello\n");
    expect(await derived.readFileBytes("new/dir/file.txt", { maxBytes: 2 })).toEqual(
      new TextEncoder().encode("he"),
    );
    await derived.deleteFile("new/dir/file.txt");
    expect(await local.fileExists("new/dir/file.txt")).toBe(false);
    await expect(derived.readFile("missing.txt")).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(derived.readFile("src")).rejects.toMatchObject({ code: "ENOTFILE" });
    await expect(derived.glob("*", "README.md")).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it("runs commands in the working directory and stops them on abort", async () => {
    const ran = await derived.execCommand("pwd; echo err >&2; exit 4");
    expect(ran).toMatchObject({
      stdout: `${dir}\n`,
      stderr: "err\n",
      exitCode: 4,
      timedOut: false,
      aborted: false,
    });
    const controller = new AbortController();
    const pending = derived.execCommand("sleep 5", { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ aborted: true, timedOut: false });
  });
});
