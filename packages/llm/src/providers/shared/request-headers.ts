/**
 * The Fetch standard's Headers, as the official SDKs use it to build a request's headers, for a
 * build that compiles an SDK in with this class in place of the global one (the command's
 * headless bundle does, see its bundle script). Node's global Headers is undici's: the first touch
 * of it compiles and runs all of Node's fetch implementation, about 12 ms of a process's start
 * spent on a class the SDK only fills and iterates, while the requests go out over node:http
 * (http-transport.ts). Names and values are checked and normalised as the standard says.
 */

/** A header name: an HTTP token (RFC 9110). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Leading and trailing HTTP whitespace, which a value loses. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** What a value may not hold once normalised. */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

/** Something iterable as name and value pairs, with `get`: a Headers object of any implementation. */
interface HeadersLike {
  entries(): IterableIterator<[string, string]>;
  get(name: string): string | null;
}

/** What the constructor takes, as fetch's HeadersInit. */
export type RequestHeadersInit =
  | HeadersLike
  | Iterable<readonly [string, string] | readonly string[]>
  | Readonly<Record<string, string>>;

function isHeadersLike(value: unknown): value is HeadersLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as HeadersLike).entries === "function" &&
    typeof (value as HeadersLike).get === "function"
  );
}

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

function checkedValue(name: string, value: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, "");
  if (FORBIDDEN_IN_VALUE.test(text))
    throw new TypeError(`Headers: invalid value for header ${JSON.stringify(name)}`);
  return text;
}

/** Headers with the standard's behaviour for request building: case-insensitive, combined, sorted. */
export class RequestHeaders implements Iterable<[string, string]> {
  /** Values by lower-case name, in the order appended. */
  readonly #fields = new Map<string, string[]>();
  /** The pairs in iteration order, made once per change: an SDK iterates a request's headers several times. */
  #sorted: readonly (readonly [string, string])[] | undefined;

  /**
   * Any Headers object counts as one, whichever implementation made it (undici's, a response's
   * own): the SDKs test `instanceof Headers` to choose how to read headers they are given.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return isHeadersLike(value);
  }

  constructor(init?: RequestHeadersInit) {
    if (init === undefined) return;
    if (init === null || typeof init !== "object")
      throw new TypeError("Headers: the init is neither a record nor a list of pairs");
    if (isHeadersLike(init)) {
      for (const [name, value] of init.entries()) this.append(name, value);
    } else if (typeof (init as Iterable<unknown>)[Symbol.iterator] === "function") {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError("Headers: each header must be a [name, value] pair");
        this.append(pair[0] as string, pair[1] as string);
      }
    } else {
      for (const [name, value] of Object.entries(init)) this.append(name, value);
    }
  }

  /** Adds a value; values of one name read back joined by ", " (set-cookie kept apart). */
  append(name: string, value: string): void {
    const key = checkedName(name);
    const checked = checkedValue(key, value);
    const values = this.#fields.get(key);
    if (values === undefined) this.#fields.set(key, [checked]);
    else values.push(checked);
    this.#sorted = undefined;
  }

  /** Replaces every value of `name`. */
  set(name: string, value: string): void {
    const key = checkedName(name);
    this.#fields.set(key, [checkedValue(key, value)]);
    this.#sorted = undefined;
  }

  delete(name: string): void {
    if (this.#fields.delete(checkedName(name))) this.#sorted = undefined;
  }

  /** The combined value, or null when absent. */
  get(name: string): string | null {
    return this.#fields.get(checkedName(name))?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.#fields.has(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#fields.get("set-cookie") ?? [])];
  }

  /** Pairs in name order with combined values, set-cookie once per cookie, as fetch's Headers gives them. */
  *entries(): IterableIterator<[string, string]> {
    if (this.#sorted === undefined) {
      const pairs: (readonly [string, string])[] = [];
      for (const name of [...this.#fields.keys()].sort()) {
        const values = this.#fields.get(name) as string[];
        if (name === "set-cookie") for (const cookie of values) pairs.push([name, cookie]);
        else pairs.push([name, values.join(", ")]);
      }
      this.#sorted = pairs;
    }
    // A new pair each time: a caller may change the pair it is given.
    for (const [name, value] of this.#sorted) yield [name, value];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: RequestHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }
}
