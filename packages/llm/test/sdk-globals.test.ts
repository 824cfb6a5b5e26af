import { describe, expect, it } from "vitest";
import { SdkFormData, SdkReadableStream } from "../src/providers/shared/platform-class-stand-ins.js";
import { RequestHeaders } from "../src/providers/shared/request-headers.js";

type Step = (h: Headers) => unknown;

/** What a Headers object shows after some calls: its entries and the result or error of each call. */
function observe(make: () => Headers, steps: readonly Step[]): unknown {
  let headers: Headers;
  try {
    headers = make();
  } catch (error) {
    return { constructed: (error as Error).name };
  }
  const results = steps.map((step) => {
    try {
      const r = step(headers);
      return r === undefined ? "ok" : r;
    } catch (error) {
      return `throws ${(error as Error).name}`;
    }
  });
  const forEachSeen: string[] = [];
  headers.forEach((value, name) => {
    forEachSeen.push(`${name}=${value}`);
  });
  return {
    results,
    entries: [...headers],
    keys: [...headers.keys()],
    values: [...headers.values()],
    forEachSeen,
    setCookie: headers.getSetCookie(),
  };
}

// Node's own Headers (undici's) is the reference: the bundled SDKs get RequestHeaders in its
// place, and every difference would be a request built differently.
const CASES: readonly { readonly name: string; readonly init?: unknown; readonly steps: readonly Step[] }[] =
  [
    { name: "empty", steps: [(h) => h.get("x"), (h) => h.has("x")] },
    {
      name: "a record, mixed case, sorted on iteration",
      init: { "X-Zeta": "1", Accept: "application/json", "content-type": "text/plain" },
      steps: [(h) => h.get("ACCEPT"), (h) => h.get("Content-Type")],
    },
    {
      name: "pairs with a repeated name, combined",
      init: [
        ["x-a", "1"],
        ["X-A", "2"],
        ["b", "3"],
      ],
      steps: [(h) => h.get("x-a")],
    },
    {
      name: "append, set, delete",
      steps: [
        (h) => h.append("x-a", "1"),
        (h) => h.append("x-a", "2"),
        (h) => h.get("x-a"),
        (h) => h.set("X-A", "3"),
        (h) => h.get("x-a"),
        (h) => h.delete("X-a"),
        (h) => h.has("x-a"),
        (h) => h.set("authorization", "Bearer k"),
      ],
    },
    {
      name: "values lose surrounding whitespace, keep inner",
      steps: [
        (h) => h.set("x", " \t a  b \r\n"),
        (h) => h.get("x"),
        (h) => h.append("y", ""),
        (h) => h.get("y"),
      ],
    },
    {
      name: "invalid names and values are refused",
      steps: [
        (h) => h.set("bad name", "1"),
        (h) => h.set("", "1"),
        (h) => h.append("x(y)", "1"),
        (h) => h.set("x", "a\nb"),
        (h) => h.set("x", "a\0b"),
        (h) => h.set("x", "a\rb"),
        (h) => h.get("bad name"),
        (h) => h.has("bad name"),
        (h) => h.delete("bad name"),
      ],
    },
    {
      name: "set-cookie kept apart",
      init: [
        ["set-cookie", "a=1"],
        ["Set-Cookie", "b=2"],
        ["x", "1"],
      ],
      steps: [(h) => h.get("set-cookie")],
    },
    { name: "a pair of the wrong length", init: [["x", "1", "2"]], steps: [] },
    { name: "another Headers object", init: new Headers({ b: "2", a: "1" }), steps: [(h) => h.get("a")] },
    { name: "null init", init: null, steps: [(h) => h.has("x")] },
    { name: "numbers as values", init: { "x-n": 5 }, steps: [(h) => h.get("x-n")] },
  ];

describe("RequestHeaders, the bundled SDKs' Headers", () => {
  for (const c of CASES)
    it(`behaves as Node's Headers: ${c.name}`, () => {
      const ours = observe(() => new RequestHeaders(c.init as never) as unknown as Headers, c.steps);
      const nodes = observe(() => new Headers(c.init as HeadersInit), c.steps);
      expect(ours).toEqual(nodes);
    });

  it("counts any Headers object as one, so an SDK reading headers it is given takes their entries", () => {
    expect(new RequestHeaders() instanceof RequestHeaders).toBe(true);
    expect(new Headers() instanceof RequestHeaders).toBe(true);
    expect({ a: "1" } instanceof RequestHeaders).toBe(false);
    expect([["a", "1"]] instanceof RequestHeaders).toBe(false);
    expect(null instanceof RequestHeaders).toBe(false);
    expect(Object.prototype.toString.call(new RequestHeaders())).toBe("[object Headers]");
  });

  it("goes into Node's fetch as its headers", async () => {
    const sent = new RequestHeaders({ "X-Test": "yes" });
    const request = new Request("http://127.0.0.1/", { headers: sent as unknown as Headers });
    expect(request.headers.get("x-test")).toBe("yes");
  });
});

describe("SdkFormData, the bundled SDKs' FormData", () => {
  it("recognises the platform's FormData without being it, and a body that is not one", () => {
    const real = new FormData();
    expect(real instanceof SdkFormData).toBe(true);
    expect({} instanceof SdkFormData).toBe(false);
    expect("text" instanceof SdkFormData).toBe(false);
    expect(new URLSearchParams("a=1") instanceof SdkFormData).toBe(false);
  });

  it("constructs the platform's FormData, so a multipart upload gets the real one", () => {
    const made = new SdkFormData();
    expect(made).toBeInstanceOf(FormData);
    (made as unknown as FormData).append("a", "1");
    expect((made as unknown as FormData).get("a")).toBe("1");
  });
});

describe("SdkReadableStream, the bundled SDKs' ReadableStream", () => {
  it("recognises the platform's ReadableStream, and a body that is not one", () => {
    expect(new ReadableStream() instanceof SdkReadableStream).toBe(true);
    expect({ getReader() {} } instanceof SdkReadableStream).toBe(false);
    expect(new Uint8Array(1) instanceof SdkReadableStream).toBe(false);
  });

  it("constructs the platform's ReadableStream, which reads as one", async () => {
    const made = new SdkReadableStream({
      start(controller: ReadableStreamDefaultController<string>) {
        controller.enqueue("a");
        controller.close();
      },
    }) as unknown as ReadableStream<string>;
    expect(made).toBeInstanceOf(ReadableStream);
    const reader = made.getReader();
    expect(await reader.read()).toEqual({ value: "a", done: false });
  });
});
