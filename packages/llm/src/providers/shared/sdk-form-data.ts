/**
 * FormData for a build that compiles an SDK in with it in place of the global one (the command's
 * headless bundle, beside request-headers.ts): the SDKs test every request body with
 * `instanceof FormData`, and the global is undici's, whose first touch compiles all of Node's
 * fetch implementation (about 30 ms of a process's start). This class recognises a FormData by
 * its tag, without touching the global; constructing one returns the global's, so a multipart
 * upload still gets the platform's own.
 */
export class SdkFormData {
  /** A FormData of any implementation; the test reads only the object's own tag. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === "[object FormData]";
  }

  constructor(...args: ConstructorParameters<typeof FormData>) {
    // biome-ignore lint/correctness/noConstructorReturn: the platform's FormData is the instance.
    return new globalThis.FormData(...args) as unknown as SdkFormData;
  }
}
