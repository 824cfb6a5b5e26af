import { Box, Text, useStdout } from "ink";
import { lexer, type Token, type Tokens } from "marked";
import type { ReactNode } from "react";
import { highlightCode } from "./highlight.js";
import { layoutTable, padCell, wrapCell } from "./table-layout.js";

/** Renders Markdown compactly for the terminal: headings, emphasis, code, lists, quotes, tables. */
export function Markdown({ text }: { readonly text: string }): ReactNode {
  const tokens = lexer(text);
  return <Blocks tokens={tokens} spaced />;
}

const BULLETS = ["•", "◦", "▪"];

function Blocks({
  tokens,
  spaced,
  depth = 0,
}: {
  readonly tokens: readonly Token[];
  readonly spaced: boolean;
  readonly depth?: number;
}): ReactNode {
  const blocks = tokens.filter((t) => t.type !== "space" && t.type !== "def");
  return (
    <Box flexDirection="column">
      {blocks.map((token, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: blocks of one finished text never reorder
        <Box key={i} marginTop={spaced && i > 0 ? 1 : 0} flexDirection="column">
          <Block token={token} depth={depth} />
        </Box>
      ))}
    </Box>
  );
}

function Block({ token, depth }: { readonly token: Token; readonly depth: number }): ReactNode {
  switch (token.type) {
    case "heading": {
      const t = token as Tokens.Heading;
      return (
        <Text bold underline={t.depth === 1} color={t.depth <= 2 ? "magentaBright" : undefined}>
          <Inline tokens={t.tokens} />
        </Text>
      );
    }
    case "paragraph":
      return (
        <Text>
          <Inline tokens={(token as Tokens.Paragraph).tokens} />
        </Text>
      );
    case "text": {
      const t = token as Tokens.Text;
      return <Text>{t.tokens ? <Inline tokens={t.tokens} /> : t.text}</Text>;
    }
    case "code": {
      const t = token as Tokens.Code;
      const highlighted = highlightCode(t.text, t.lang);
      return (
        <Box flexDirection="column" paddingLeft={2}>
          {t.lang ? <Text dimColor>{t.lang}</Text> : null}
          {highlighted === undefined ? <Text color="yellow">{t.text}</Text> : <Text>{highlighted}</Text>}
        </Box>
      );
    }
    case "list":
      return <List list={token as Tokens.List} depth={depth} />;
    case "blockquote":
      return (
        <Box
          borderStyle="single"
          borderTop={false}
          borderRight={false}
          borderBottom={false}
          borderDimColor
          paddingLeft={1}
        >
          <Blocks tokens={(token as Tokens.Blockquote).tokens} spaced depth={depth} />
        </Box>
      );
    case "hr":
      return <Text dimColor>{"─".repeat(40)}</Text>;
    case "table":
      return <Table table={token as Tokens.Table} />;
    case "html":
      return <Text>{(token as Tokens.HTML).text.trimEnd()}</Text>;
    default:
      return "raw" in token && typeof token.raw === "string" ? <Text>{token.raw.trimEnd()}</Text> : null;
  }
}

function List({ list, depth }: { readonly list: Tokens.List; readonly depth: number }): ReactNode {
  const start = typeof list.start === "number" ? list.start : 1;
  const markers = list.items.map((item, i) => {
    if (item.task) return item.checked ? "☒" : "☐";
    return list.ordered ? `${start + i}.` : (BULLETS[depth % BULLETS.length] as string);
  });
  const width = Math.max(...markers.map((m) => m.length)) + 1;
  return (
    <Box flexDirection="column">
      {list.items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: items of one finished list never reorder
        <Box key={i} flexDirection="row" marginTop={list.loose && i > 0 ? 1 : 0}>
          <Box width={width} flexShrink={0}>
            <Text dimColor={!list.ordered}>{markers[i]}</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            <Blocks
              tokens={item.tokens.filter((t) => t.type !== "checkbox")}
              spaced={item.loose}
              depth={depth + 1}
            />
          </Box>
        </Box>
      ))}
    </Box>
  );
}

/** Cells of the assistant's answer are indented this much (its bullet) beside the table. */
const ANSWER_INDENT = 2;

function Table({ table }: { readonly table: Tokens.Table }): ReactNode {
  const { stdout } = useStdout();
  const header = table.header.map((c) => plain(c.tokens));
  const rows = table.rows.map((r) => r.map((c) => plain(c.tokens)));
  const layout = layoutTable(header, rows, Math.max(10, (stdout.columns ?? 80) - ANSWER_INDENT - 1));
  if (layout.kind === "list")
    // Too narrow for columns: each row as "header: value" lines.
    return (
      <Box flexDirection="column">
        {rows.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows of one finished table never reorder
          <Box key={i} flexDirection="column" marginTop={i > 0 ? 1 : 0}>
            {header.map((h, col) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: columns of one finished table never reorder
              <Text key={col}>
                <Text bold>{h}:</Text> {r[col] ?? ""}
              </Text>
            ))}
          </Box>
        ))}
      </Box>
    );
  const { widths } = layout;
  // Each row as many lines as its tallest cell takes once wrapped to its column.
  const lines = (cells: readonly string[]) => {
    const wrapped = widths.map((w, col) => wrapCell(cells[col] ?? "", w));
    const height = Math.max(...wrapped.map((c) => c.length));
    return Array.from({ length: height }, (_, k) =>
      widths
        .map((w, col) => padCell(wrapped[col]?.[k] ?? "", w, table.align[col] === "right"))
        .join(" │ ")
        .trimEnd(),
    ).join("\n");
  };
  return (
    <Box flexDirection="column">
      <Text bold>{lines(header)}</Text>
      <Text dimColor>{widths.map((w) => "─".repeat(w)).join("─┼─")}</Text>
      {rows.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of one finished table never reorder
        <Text key={i}>{lines(r)}</Text>
      ))}
    </Box>
  );
}

function Inline({ tokens }: { readonly tokens: readonly Token[] | undefined }): ReactNode {
  if (!tokens) return null;
  return tokens.map((token, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: inline runs of one finished text never reorder
    <InlineToken key={i} token={token} />
  ));
}

function InlineToken({ token }: { readonly token: Token }): ReactNode {
  switch (token.type) {
    case "strong":
      return (
        <Text bold>
          <Inline tokens={(token as Tokens.Strong).tokens} />
        </Text>
      );
    case "em":
      return (
        <Text italic>
          <Inline tokens={(token as Tokens.Em).tokens} />
        </Text>
      );
    case "del":
      return (
        <Text strikethrough>
          <Inline tokens={(token as Tokens.Del).tokens} />
        </Text>
      );
    case "codespan":
      return <Text color="cyan">{(token as Tokens.Codespan).text}</Text>;
    case "link": {
      const t = token as Tokens.Link;
      const label = plain(t.tokens);
      return (
        <Text>
          <Text color="blue" underline>
            {label}
          </Text>
          {label !== t.href && !t.href.startsWith("#") ? <Text dimColor> ({t.href})</Text> : null}
        </Text>
      );
    }
    case "image": {
      const t = token as Tokens.Image;
      return <Text dimColor>[image: {t.text || t.href}]</Text>;
    }
    case "br":
      return "\n";
    case "text": {
      const t = token as Tokens.Text;
      return t.tokens ? <Inline tokens={t.tokens} /> : t.text;
    }
    case "escape":
      return (token as Tokens.Escape).text;
    default:
      return "text" in token && typeof token.text === "string" ? token.text : "";
  }
}

/** The text of inline tokens without formatting (table cells, link labels). */
function plain(tokens: readonly Token[] | undefined): string {
  if (!tokens) return "";
  return tokens
    .map((t) => {
      if ("tokens" in t && Array.isArray(t.tokens) && t.type !== "codespan") return plain(t.tokens);
      return "text" in t && typeof t.text === "string" ? t.text : "";
    })
    .join("");
}
