/**
 * A configuration the CLI cannot run with (no provider, unknown provider, missing model…).
 * Front ends print the message and exit with code 2.
 */
export class ConfigurationError extends Error {
  override readonly name: string = "ConfigurationError";
  constructor(
    message: string,
    /** A hint on how to fix it, printed after the message. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** No provider can be used: no API key and no OpenAI-compatible server is configured. */
export class NoProviderError extends ConfigurationError {
  override readonly name = "NoProviderError";
  constructor(
    /** The environment variables any of which would make a provider usable. */
    readonly variables: readonly string[],
    message: string,
  ) {
    super(message);
  }
}

/** A stored session that --continue or --resume cannot find. */
export class SessionSelectionError extends ConfigurationError {
  override readonly name = "SessionSelectionError";
}

/** A conversation rewind that cannot be done: a turn is running, or the target is no user message. */
export class RewindError extends Error {
  override readonly name = "RewindError";
  constructor(
    message: string,
    /** The history position asked for. */
    readonly turnIndex: number,
  ) {
    super(message);
  }
}
