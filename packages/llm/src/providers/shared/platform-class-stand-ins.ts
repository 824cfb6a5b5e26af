/**
 * Stand-ins for platform classes, for a build that compiles an SDK in with them in place of the
 * globals (the command's headless bundle, beside request-headers.ts). The SDKs test every request
 * body with `instanceof FormData` and `instanceof ReadableStream`; the first touch of the global
 * FormData compiles all of Node's fetch implementation (about 30 ms of a process's start), that of
 * ReadableStream Node's web streams (3 to 5 ms). A stand-in recognises an instance of the platform
 * class by its tag, without touching the global; constructing one returns the platform's own, so
 * a multipart upload or a streamed body still gets the real thing.
 */

type PlatformClassName = "FormData" | "ReadableStream";

/** A class standing in for the global `name` (see above). */
function standIn(name: PlatformClassName) {
  const tag = `[object ${name}]`;
  return class {
    /** An instance of the platform class, of whatever implementation; reads only the object's tag. */
    static [Symbol.hasInstance](value: unknown): boolean {
      return Object.prototype.toString.call(value) === tag;
    }

    constructor(...args: unknown[]) {
      const Platform = globalThis[name] as unknown as new (...a: unknown[]) => object;
      // biome-ignore lint/correctness/noConstructorReturn: the platform's instance is the result.
      return new Platform(...args);
    }
  };
}

/** Stands in for FormData in a bundled SDK. */
export const SdkFormData = standIn("FormData");
/** Stands in for ReadableStream in a bundled SDK. */
export const SdkReadableStream = standIn("ReadableStream");
