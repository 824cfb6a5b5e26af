/** Anything query() reports by throwing: the option it could not run with, or the run's failure. */
export class QueryError extends Error {
  override readonly name: string = "QueryError";
}

/** An option query() cannot run with; nothing was started. */
export class QueryOptionError extends QueryError {
  override readonly name = "QueryOptionError";
  constructor(
    /** The option's name, as query() takes it (`permissionMode`, `mcpServers`…). */
    readonly option: string,
    readonly problem: string,
  ) {
    super(`query(): option ${option}: ${problem}`);
  }
}

/** A control method (setModel, setPermissionMode) called with a value it cannot take. */
export class QueryControlError extends QueryError {
  override readonly name = "QueryControlError";
  constructor(
    readonly method: "setModel" | "setPermissionMode" | "interrupt",
    readonly problem: string,
  ) {
    super(`query(): ${method}: ${problem}`);
  }
}
