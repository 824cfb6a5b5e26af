import type { Warning } from "../../types/index.js";

/**
 * Runs `call` with console.warn captured and returns its result with the captured messages.
 * The Anthropic SDK warns about deprecated models with console.warn from inside `create()`,
 * synchronously and with no option to turn it off; printed, that would corrupt a terminal UI and a
 * headless run's stderr. `call` must only start the request (the SDK warns before its first await),
 * so the swap never spans another caller's code.
 */
export function captureSdkWarnings<T>(call: () => T): { readonly result: T; readonly warnings: Warning[] } {
  const warnings: Warning[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    warnings.push({ message: args.map(String).join(" "), code: "sdk_warning" });
  };
  try {
    return { result: call(), warnings };
  } finally {
    console.warn = original;
  }
}
