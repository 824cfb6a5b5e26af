import { execFile } from "node:child_process";
import { programOnPath } from "@attractor/agent";

/** What reading the clipboard for an image gave. */
export type ClipboardImage =
  | { readonly kind: "image"; readonly bytes: Buffer }
  /** No reader worked or the clipboard holds no image; `reason` says which, for the user. */
  | { readonly kind: "none"; readonly reason: string };

/** One way of reading an image from the system clipboard. */
interface Reader {
  readonly program: string;
  readonly args: readonly string[];
  /** Whether this reader applies in this environment (its display server is there). */
  readonly applies: (env: NodeJS.ProcessEnv, platform: NodeJS.Platform) => boolean;
}

const READERS: readonly Reader[] = [
  {
    program: "wl-paste",
    args: ["--no-newline", "--type", "image/png"],
    applies: (env, platform) => platform === "linux" && Boolean(env.WAYLAND_DISPLAY),
  },
  {
    program: "xclip",
    args: ["-selection", "clipboard", "-t", "image/png", "-o"],
    applies: (env, platform) => platform !== "darwin" && platform !== "win32" && Boolean(env.DISPLAY),
  },
  {
    // pngpaste is the usual macOS tool; without it, AppleScript writes the clipboard's PNG out.
    program: "pngpaste",
    args: ["-"],
    applies: (_env, platform) => platform === "darwin",
  },
  {
    program: "osascript",
    args: [
      "-e",
      "set png to (the clipboard as «class PNGf»)",
      "-e",
      'set f to open for access POSIX file "/dev/stdout" with write permission',
      "-e",
      "write png to f",
      "-e",
      "close access f",
    ],
    applies: (_env, platform) => platform === "darwin",
  },
];

/** More than any image that may be attached; a bigger clipboard is still reported as too large. */
const MAX_CLIPBOARD_BYTES = 64 * 1024 * 1024;
const READ_TIMEOUT_MS = 5000;

/**
 * Reads an image from the system clipboard with the first tool that applies and answers: wl-paste
 * (Wayland), xclip (X11), pngpaste or osascript (macOS). Never throws: a missing tool or an empty
 * clipboard is a `none` with the reason.
 */
export async function readClipboardImage(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<ClipboardImage> {
  const readers = READERS.filter((r) => r.applies(env, platform));
  if (readers.length === 0)
    return {
      kind: "none",
      reason:
        "no clipboard reader for this terminal (wl-paste on Wayland, xclip on X11); paste the image's file path instead",
    };
  const missing: string[] = [];
  for (const reader of readers) {
    const result = await run(reader, env);
    if (result === "missing") missing.push(reader.program);
    else if (result !== undefined && result.length > 0) return { kind: "image", bytes: result };
  }
  if (missing.length === readers.length)
    return {
      kind: "none",
      reason: `${missing.join(" or ")} is not installed, so the clipboard cannot be read`,
    };
  return { kind: "none", reason: "the clipboard holds no image" };
}

function run(reader: Reader, env: NodeJS.ProcessEnv): Promise<Buffer | "missing" | undefined> {
  // From PATH's absolute folders outside the working directory only: a relative entry (`.`)
  // would run the project's own `xclip`.
  const program = programOnPath(reader.program, env.PATH, process.cwd());
  if (!program.includes("/")) return Promise.resolve("missing");
  return new Promise((resolve) => {
    execFile(
      program,
      [...reader.args],
      { encoding: "buffer", env, timeout: READ_TIMEOUT_MS, maxBuffer: MAX_CLIPBOARD_BYTES },
      (error, stdout) => {
        if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") resolve("missing");
        else if (error) resolve(undefined);
        else resolve(stdout);
      },
    );
  });
}
