import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseToolCalls, stripToolCalls } from "./parser.js";

const params = (name: string) =>
  ({ read_file: ["file_path", "offset", "limit"], list_dir: ["path", "depth"] })[name] as
    | string[]
    | undefined;

describe("parseToolCalls quirks", () => {
  const cases: [string, string, { name: string; arguments: Record<string, unknown> }[]][] = [
    [
      "canonical",
      '<tool_call>{"name":"read_file","arguments":{"file_path":"a.ts"}}</tool_call>',
      [{ name: "read_file", arguments: { file_path: "a.ts" } }],
    ],
    [
      "args alias",
      '<tool_call>{"name":"shell","args":{"command":"ls"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "params alias",
      '<tool_call>{"name":"shell","params":{"command":"ls"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "parameters alias",
      '<tool_call>{"name":"shell","parameters":{"command":"ls"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "tool name alias",
      '<tool_call>{"tool":"shell","arguments":{"command":"ls"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "function name alias",
      '<tool_call>{"function":"shell","arguments":{"command":"ls"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "nested function object",
      '<tool_call>{"function":{"name":"shell","arguments":"{\\"command\\":\\"ls\\"}"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "arguments as JSON string",
      '<tool_call>{"name":"shell","arguments":"{\\"command\\":\\"pwd\\"}"}</tool_call>',
      [{ name: "shell", arguments: { command: "pwd" } }],
    ],
    [
      "top-level arguments",
      '<tool_call>{"name":"shell","command":"ls -la"}</tool_call>',
      [{ name: "shell", arguments: { command: "ls -la" } }],
    ],
    [
      "path alias mapped to file_path",
      '<tool_call>{"name":"read_file","arguments":{"path":"x.py"}}</tool_call>',
      [{ name: "read_file", arguments: { file_path: "x.py" } }],
    ],
    [
      "filePath alias",
      '<tool_call>{"name":"read_file","arguments":{"filePath":"x.py"}}</tool_call>',
      [{ name: "read_file", arguments: { file_path: "x.py" } }],
    ],
    [
      "file alias",
      '<tool_call>{"name":"read_file","arguments":{"file":"x.py"}}</tool_call>',
      [{ name: "read_file", arguments: { file_path: "x.py" } }],
    ],
    [
      "file_path alias for a tool that takes path",
      '<tool_call>{"name":"list_dir","arguments":{"file_path":"src"}}</tool_call>',
      [{ name: "list_dir", arguments: { path: "src" } }],
    ],
    [
      "top-level path alias",
      '<tool_call>{"name":"read_file","filePath":"x.py"}</tool_call>',
      [{ name: "read_file", arguments: { file_path: "x.py" } }],
    ],
    [
      "path kept when the tool takes path",
      '<tool_call>{"name":"list_dir","arguments":{"path":"src"}}</tool_call>',
      [{ name: "list_dir", arguments: { path: "src" } }],
    ],
    [
      "nested braces in strings",
      '<tool_call>{"name":"write_file","arguments":{"file_path":"a.js","content":"function f() { return {a: 1}; }"}}</tool_call>',
      [{ name: "write_file", arguments: { file_path: "a.js", content: "function f() { return {a: 1}; }" } }],
    ],
    [
      "inside a code fence",
      'Let me look.\n```xml\n<tool_call>\n{"name": "shell", "arguments": {"command": "ls"}}\n</tool_call>\n```',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "json fence inside the block",
      '<tool_call>\n```json\n{"name": "shell", "arguments": {"command": "ls"}}\n```\n</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "two calls",
      '<tool_call>{"name":"a","arguments":{}}</tool_call> then <tool_call>{"name":"b","arguments":{"x":1}}</tool_call>',
      [
        { name: "a", arguments: {} },
        { name: "b", arguments: { x: 1 } },
      ],
    ],
    [
      "two objects in one block",
      '<tool_call>{"name":"a","arguments":{}}\n{"name":"b","arguments":{}}</tool_call>',
      [
        { name: "a", arguments: {} },
        { name: "b", arguments: {} },
      ],
    ],
    [
      "cut off between arguments keeps the complete ones",
      '<tool_call>{"name":"write_file","arguments":{"file_path":"x.ts", ',
      [{ name: "write_file", arguments: { file_path: "x.ts" } }],
    ],
    [
      "cut off after a value",
      '<tool_call>{"name":"shell","arguments":{"command":"ls"',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "missing close tag before next call",
      '<tool_call>{"name":"a","arguments":{}}\n<tool_call>{"name":"b","arguments":{}}</tool_call>',
      [
        { name: "a", arguments: {} },
        { name: "b", arguments: {} },
      ],
    ],
  ];
  for (const [label, text, expected] of cases) {
    it(label, () => {
      const { calls } = parseToolCalls(text, { parametersOf: params });
      expect(calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(expected);
    });
  }

  it("marks repaired calls", () => {
    const { calls } = parseToolCalls('<tool_call>{"name":"shell","arguments":{"command":"ls"');
    expect(calls[0]?.repaired).toBe(true);
  });

  it("reports a call cut off inside a value instead of running a truncated one", () => {
    const { calls, issues } = parseToolCalls(
      '<tool_call>{"name":"write_file","arguments":{"file_path":"x.ts","content":"const a = 1',
    );
    expect(calls).toEqual([]);
    expect(issues[0]?.message).toMatch(/cut off in the middle of a value/);
    expect(parseToolCalls('<tool_call>{"name":"read_file","arguments":{"limit":12').calls).toEqual([]);
    expect(parseToolCalls('<tool_call>{"name":"rea').calls).toEqual([]);
  });

  it("reports a block it cannot read instead of guessing", () => {
    const { calls, issues } = parseToolCalls("<tool_call>read the file please</tool_call>");
    expect(calls).toEqual([]);
    expect(issues[0]?.message).toMatch(/no JSON object/);
    const noName = parseToolCalls('<tool_call>{"arguments":{"a":1}}</tool_call>');
    expect(noName.calls).toEqual([]);
    expect(noName.issues[0]?.message).toMatch(/no "name"/);
    const broken = parseToolCalls('<tool_call>{"name": "x", "arguments": {"a": 1 2}}</tool_call>');
    expect(broken.calls).toEqual([]);
    expect(broken.issues[0]?.message).toMatch(/invalid tool call JSON/);
  });

  it("ignores JSON outside tool_call tags", () => {
    expect(parseToolCalls('Here is JSON: {"name":"shell","arguments":{"command":"rm -rf /"}}').calls).toEqual(
      [],
    );
  });

  it("strips markup for display", () => {
    expect(
      stripToolCalls('I will list.\n```xml\n<tool_call>{"name":"a","arguments":{}}</tool_call>\n```\nDone'),
    ).toBe("I will list.\n\nDone");
    expect(stripToolCalls('Reading <tool_call>{"name":"a"')).toBe("Reading");
  });
});

describe("calls written without <tool_call> tags, and broken JSON", () => {
  const known = (name: string) =>
    ({ read_file: ["file_path"], shell: ["command"], write_file: ["file_path", "content"] })[name] as
      | string[]
      | undefined;
  const parse = (text: string) => parseToolCalls(text, { parametersOf: known });
  const simple = (text: string) => parse(text).calls.map((c) => ({ name: c.name, arguments: c.arguments }));

  it.each([
    [
      "a ```json fence naming a tool",
      'Reading it.\n```json\n{"name": "read_file", "arguments": {"file_path": "a.ts"}}\n```',
      [{ name: "read_file", arguments: { file_path: "a.ts" } }],
    ],
    [
      "a ```tool_call fence",
      '```tool_call\n{"name": "shell", "arguments": {"command": "ls"}}\n```',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "a reply that is nothing but a call object",
      '  {"name": "shell", "arguments": {"command": "pwd"}}\n',
      [{ name: "shell", arguments: { command: "pwd" } }],
    ],
    [
      "``` inside a string of the call does not end the fence",
      '```json\n{"name": "write_file", "arguments": {"file_path": "R.md", "content": "```sh\\nnpm i\\n```\\n"}}\n```\nDone.',
      [{ name: "write_file", arguments: { file_path: "R.md", content: "```sh\nnpm i\n```\n" } }],
    ],
    [
      "trailing commas",
      '<tool_call>{"name": "shell", "arguments": {"command": "ls",},}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "single quotes, with a brace inside a string",
      "```json\n{'name': 'write_file', 'arguments': {'file_path': 'a.js', 'content': 'f() { return 1 }'}}\n```",
      [{ name: "write_file", arguments: { file_path: "a.js", content: "f() { return 1 }" } }],
    ],
    [
      "Python True, False and None",
      '<tool_call>{"name": "shell", "arguments": {"command": "ls", "a": True, "b": False, "c": None}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls", a: true, b: false, c: null } }],
    ],
    [
      "raw newlines inside a string",
      '```json\n{"name": "write_file", "arguments": {"file_path": "a.py", "content": "x = 1\ny = 2\n"}}\n```',
      [{ name: "write_file", arguments: { file_path: "a.py", content: "x = 1\ny = 2\n" } }],
    ],
    [
      "unquoted keys",
      '<tool_call>{name: "shell", arguments: {command: "ls"}}</tool_call>',
      [{ name: "shell", arguments: { command: "ls" } }],
    ],
    [
      "comments, with an apostrophe in one",
      '```tool_call\n{\n  // don\'t forget the path\n  "name": "read_file", /* the file */ "arguments": {"file_path": "x"}\n}\n```',
      [{ name: "read_file", arguments: { file_path: "x" } }],
    ],
  ])("%s", (_label, text, expected) => {
    expect(simple(text)).toEqual(expected);
  });

  it("marks calls jsonrepair fixed as repaired", () => {
    expect(
      parse('<tool_call>{"name": "shell", "arguments": {"command": "ls",}}</tool_call>').calls[0]?.repaired,
    ).toBe(true);
  });

  it("leaves JSON that is not a call to a known tool alone", () => {
    expect(parse('Your package.json:\n```json\n{"name": "my-app", "version": "1.0.0"}\n```').calls).toEqual(
      [],
    );
    expect(parse('{"name": "my-app", "arguments": {"x": 1}}').calls).toEqual([]);
    expect(
      parse('The call looks like {"name": "shell", "arguments": {"command": "ls"}} in prose.').calls,
    ).toEqual([]);
    // Without knowing the tools, a json fence is never taken for a call.
    expect(parseToolCalls('```json\n{"name": "shell", "arguments": {"command": "ls"}}\n```').calls).toEqual(
      [],
    );
  });

  it("reports a fenced call that cannot be read", () => {
    const { calls, issues } = parse('```json\n{"name": "shell", "arguments": {"command": "ls" 1 2}}\n```');
    expect(calls).toEqual([]);
    expect(issues[0]?.message).toMatch(/invalid tool call JSON/);
  });

  it("strips fenced calls for display, keeps other fences", () => {
    expect(
      stripToolCalls('Listing.\n```json\n{"name": "shell", "arguments": {"command": "ls"}}\n```\nDone', {
        parametersOf: known,
      }),
    ).toBe("Listing.\n\nDone");
    const example = 'Example:\n```json\n{"a": 1}\n```';
    expect(stripToolCalls(example, { parametersOf: known })).toBe(example);
  });
});

describe("parseToolCalls properties", () => {
  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (s) => {
        parseToolCalls(s);
        parseToolCalls(`<tool_call>${s}`);
        parseToolCalls(`<tool_call>{${s}</tool_call>`);
        stripToolCalls(s);
      }),
      { numRuns: 500 },
    );
  });

  it("never invents a call from text without a tool_call tag", () => {
    const jsonish = fc
      .array(
        fc.constantFrom(
          "{",
          "}",
          '"',
          "name",
          ":",
          "arguments",
          ",",
          "[",
          "]",
          "<",
          ">",
          "tool",
          "_",
          "call",
          "/",
          " ",
          "a",
        ),
        { maxLength: 80 },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(jsonish, (s) => {
        fc.pre(!s.includes("<tool_call>"));
        expect(parseToolCalls(s).calls).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it("mangled calls never throw and never yield a call whose name the text does not contain", () => {
    const call = fc.record({
      name: fc.constantFrom("read_file", "shell", "write_file"),
      arguments: fc.dictionary(
        fc.constantFrom("file_path", "command", "content"),
        fc.string({ maxLength: 15 }),
      ),
    });
    const edit = fc.record({
      at: fc.nat(),
      cut: fc.nat({ max: 6 }),
      insert: fc.constantFrom("", "{", "}", '"', ",", ":", "]", "\\"),
    });
    fc.assert(
      fc.property(call, fc.array(edit, { maxLength: 4 }), (c, edits) => {
        let text = `<tool_call>${JSON.stringify(c)}</tool_call>`;
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          text = text.slice(0, at) + e.insert + text.slice(at + e.cut);
        }
        const { calls } = parseToolCalls(text);
        // Names and keys come from the text, possibly JSON-escaped there, or with the backslash of
        // an invalid escape dropped by jsonrepair.
        const inText = (s: string) =>
          text.includes(s) ||
          text.includes(JSON.stringify(s).slice(1, -1)) ||
          text.replaceAll("\\", "").includes(s.replaceAll("\\", ""));
        for (const parsed of calls) {
          expect(inText(parsed.name)).toBe(true);
          for (const key of Object.keys(parsed.arguments)) expect(inText(key)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("a call cut at any point yields the call, a call with a subset of its complete arguments, or an issue", () => {
    const call = fc.record({
      name: fc.constantFrom("read_file", "shell", "write_file"),
      arguments: fc.dictionary(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()),
      ),
    });
    fc.assert(
      fc.property(call, fc.nat(), (c, cut) => {
        const full = `<tool_call>${JSON.stringify(c)}</tool_call>`;
        const text = full.slice(0, cut % (full.length + 1));
        const { calls, issues } = parseToolCalls(text);
        expect(calls.length + issues.length).toBeLessThanOrEqual(text.includes("<tool_call>") ? 1 : 0);
        for (const parsed of calls) {
          expect(parsed.name).toBe(c.name);
          for (const [k, v] of Object.entries(parsed.arguments)) {
            expect(v).toEqual((c.arguments as Record<string, unknown>)[k]);
          }
        }
        if (text === full) expect(calls.map((x) => x.arguments)).toEqual([c.arguments]);
      }),
      { numRuns: 1000 },
    );
  });
});
