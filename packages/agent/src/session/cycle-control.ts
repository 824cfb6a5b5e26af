/**
 * Cancellation for a session. Each processing cycle gets its own signal: interrupt() aborts only
 * the running cycle (the session stays usable), shutdown() aborts the cycle and every later one.
 */
export class CycleControl {
  private readonly session = new AbortController();
  private cycle: AbortController | undefined;
  private interruptedCycle = false;

  /** Starts a cycle and returns its signal (already aborted when the session is shutting down). */
  begin(): AbortSignal {
    this.cycle = new AbortController();
    this.interruptedCycle = false;
    if (this.session.signal.aborted) this.cycle.abort(this.session.signal.reason);
    return this.cycle.signal;
  }

  /** Ends the cycle: later work outside a cycle (a manual compaction…) uses the session's signal. */
  end(): void {
    this.cycle = undefined;
  }

  /** The running cycle's signal, or the session's between cycles. */
  get signal(): AbortSignal {
    return this.cycle?.signal ?? this.session.signal;
  }

  /** Aborts the running cycle only; false when there is none to abort. */
  interrupt(): boolean {
    if (!this.cycle || this.cycle.signal.aborted) return false;
    this.interruptedCycle = true;
    this.cycle.abort(new Error("interrupted by the user"));
    return true;
  }

  /** Aborts the running cycle and every later one. */
  shutdown(): void {
    this.session.abort(new Error("session closed"));
    this.cycle?.abort(this.session.signal.reason);
  }

  /** Whether the session is shutting down. */
  get closing(): boolean {
    return this.session.signal.aborted;
  }

  /** Whether the current cycle was interrupted (and the session is not closing). */
  get interrupted(): boolean {
    return this.interruptedCycle && !this.closing;
  }
}
