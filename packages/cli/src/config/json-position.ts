/** Where a JSON text first stops being valid: 1-based line and column plus what was wrong. */
export interface JsonSyntaxProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/**
 * Finds the first syntax error of a JSON text, or undefined when it parses. JSON.parse's own
 * messages do not always carry a position, so this small scanner locates it for error reports.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw new ScanError(i, message);
  };
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i] as string)) i++;
  };
  const describe = () =>
    i >= text.length ? "unexpected end of input" : `unexpected ${JSON.stringify(text[i])}`;
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(describe());
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("invalid \\u escape");
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail("invalid escape in string");
      } else if (c.charCodeAt(0) < 0x20) fail("control character in string");
      else i++;
    }
    fail("unterminated string");
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "" || m[0] === "-") fail("invalid number");
    i += (m as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a property name, ${describe()}`);
        string();
        ws();
        if (text[i] !== ":") fail(`expected ':', ${describe()}`);
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(`expected ',' or '}', ${describe()}`);
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(`expected ',' or ']', ${describe()}`);
      }
    }
    if (c === '"') {
      string();
      return;
    }
    if (c === "t") {
      literal("true");
      return;
    }
    if (c === "f") {
      literal("false");
      return;
    }
    if (c === "n") {
      literal("null");
      return;
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      number();
      return;
    }
    fail(`expected a value, ${describe()}`);
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    ws();
    if (i < text.length) fail(`unexpected ${JSON.stringify(text[i])} after the end of the value`);
    return undefined;
  } catch (error) {
    if (!(error instanceof ScanError)) throw error;
    const before = text.slice(0, error.offset);
    const line = before.split("\n").length;
    const column = error.offset - before.lastIndexOf("\n");
    return { line, column, message: error.message };
  }
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}
