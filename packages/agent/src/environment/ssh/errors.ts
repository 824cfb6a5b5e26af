import { EnvironmentError } from "../errors.js";

/** The SSH connection could not be made, or dropped while a call was using it. */
export class RemoteConnectionError extends EnvironmentError {
  readonly host: string;
  constructor(host: string, message: string, options?: { cause?: unknown }) {
    super("EREMOTE", message, options);
    this.name = "RemoteConnectionError";
    this.host = host;
  }
}

/**
 * The server's host key is not in known_hosts ("unknown") or differs from the one recorded there
 * ("mismatch"); the connection is refused either way, never trusted silently.
 */
export class HostKeyError extends RemoteConnectionError {
  readonly reason: "unknown" | "mismatch";
  /** SHA256 fingerprint of the key the server offered, as `ssh-keygen -l` prints it. */
  readonly fingerprint: string;
  constructor(host: string, reason: "unknown" | "mismatch", fingerprint: string, knownHosts: string) {
    super(
      host,
      reason === "unknown"
        ? `The host key of ${host} (${fingerprint}) is not in ${knownHosts}. Verify it and add it (for example with \`ssh ${host}\` once, or ssh-keyscan), then try again.`
        : `The host key of ${host} (${fingerprint}) does not match the one in ${knownHosts}: refusing to connect. If the server's key really changed, remove the old entry (ssh-keygen -R ${host}).`,
    );
    this.name = "HostKeyError";
    this.reason = reason;
    this.fingerprint = fingerprint;
  }
}
