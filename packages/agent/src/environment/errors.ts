/** The base of every expected failure an ExecutionEnvironment reports; `code` is stable for hosts. */
export class EnvironmentError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EnvironmentError";
    this.code = code;
  }
}

/** Nothing exists at the path. */
export class FileNotFoundError extends EnvironmentError {
  readonly path: string;
  constructor(path: string, options?: { cause?: unknown }) {
    super("ENOENT", `File not found: ${path}`, options);
    this.name = "FileNotFoundError";
    this.path = path;
  }
}

/** A file was expected but the path is something else (a directory, a socket…). */
export class NotAFileError extends EnvironmentError {
  readonly path: string;
  constructor(path: string, message = `Not a file: ${path}`) {
    super("ENOTFILE", message);
    this.name = "NotAFileError";
    this.path = path;
  }
}

/** A file was expected but the path is a directory. */
export class IsADirectoryError extends NotAFileError {
  constructor(path: string) {
    super(path, `Is a directory: ${path}`);
    this.name = "IsADirectoryError";
  }
}

/** A directory was expected but the path is not one. */
export class NotADirectoryError extends EnvironmentError {
  readonly path: string;
  constructor(path: string) {
    super("ENOTDIR", `Not a directory: ${path}`);
    this.name = "NotADirectoryError";
    this.path = path;
  }
}

/** The operating system refused access. */
export class PermissionDeniedError extends EnvironmentError {
  readonly path: string;
  constructor(path: string, options?: { cause?: unknown }) {
    super("EACCES", `Permission denied: ${path}`, options);
    this.name = "PermissionDeniedError";
    this.path = path;
  }
}

/** A confined environment refused a path that resolves outside its root. */
export class PathOutsideRootError extends EnvironmentError {
  readonly path: string;
  readonly root: string;
  constructor(path: string, root: string) {
    super("EOUTSIDEROOT", `Path is outside the allowed root ${root}: ${path}`);
    this.name = "PathOutsideRootError";
    this.path = path;
    this.root = root;
  }
}

/**
 * A path inside the project that leads outside it through a symlink (possibly one swapped in
 * after the call was checked): searched or written, it would act on `realPath`. Naming `realPath`
 * itself lets the permission layer judge it as the outside path it is.
 */
export class SymlinkOutsideProjectError extends EnvironmentError {
  readonly path: string;
  readonly realPath: string;
  constructor(path: string, realPath: string) {
    super(
      "ESYMLINKOUT",
      `${path} leads outside the project through a symbolic link (to ${realPath}); refused. Name ${realPath} itself if that is the place meant.`,
    );
    this.name = "SymlinkOutsideProjectError";
    this.path = path;
    this.realPath = realPath;
  }
}

/**
 * A file tool was pointed at a process's own data under /proc (its environment, memory, open
 * files, command line): it holds the agent's API keys, so no mode reads it.
 */
export class ProcessDataError extends EnvironmentError {
  readonly path: string;
  constructor(path: string) {
    super(
      "EPROCDATA",
      `${path} is a process's own data (/proc/<pid>, /proc/self): file tools never read it, in any mode.`,
    );
    this.name = "ProcessDataError";
    this.path = path;
  }
}

/** The message the spec fixes for writes in read-only mode. */
export const READ_ONLY_MESSAGE = "Write operations are disabled in read-only mode";

/** A read-only environment refused a write or delete. */
export class ReadOnlyError extends EnvironmentError {
  readonly path?: string;
  constructor(path?: string) {
    super("EREADONLY", READ_ONLY_MESSAGE);
    this.name = "ReadOnlyError";
    if (path !== undefined) this.path = path;
  }
}

/** A command could not be started at all (a non-zero exit is not an error: see ExecResult). */
export class CommandError extends EnvironmentError {
  readonly command: string;
  constructor(command: string, message: string, options?: { cause?: unknown }) {
    super("ECOMMAND", message, options);
    this.name = "CommandError";
    this.command = command;
  }
}

/** A search pattern (regex or glob) is malformed. */
export class InvalidPatternError extends EnvironmentError {
  readonly pattern: string;
  constructor(pattern: string, reason: string) {
    super("EPATTERN", `Invalid pattern ${JSON.stringify(pattern)}: ${reason}`);
    this.name = "InvalidPatternError";
    this.pattern = pattern;
  }
}

/** A search could not start `rg` because it is not installed. */
export class RipgrepMissingError extends CommandError {
  constructor(cause: Error) {
    super("rg", "ripgrep (rg) is not installed", { cause });
    this.name = "RipgrepMissingError";
  }
}

/** Maps a Node fs error to the matching EnvironmentError; other errors come back unchanged. */
export function fromNodeError(err: unknown, path: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new FileNotFoundError(path, { cause: err });
    case "EACCES":
    case "EPERM":
      return new PermissionDeniedError(path, { cause: err });
    case "EISDIR":
      return new IsADirectoryError(path);
    case "ENOTDIR":
      return new NotADirectoryError(path);
    default:
      return err;
  }
}
