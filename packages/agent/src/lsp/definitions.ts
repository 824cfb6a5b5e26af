import { type Static, type TObject, Type } from "@sinclair/typebox";
import { StringEnum } from "../tools/define-tool.js";
import type { ToolDefinition } from "../types/tool.js";

/** The code-intelligence tools' names. */
export const CODE_INTELLIGENCE_TOOL_NAMES = [
  "find_definition",
  "find_references",
  "get_document_symbols",
  "find_symbol",
  "get_hover_info",
  "get_call_hierarchy",
  "find_implementations",
  "get_type_hierarchy",
  "get_diagnostics",
] as const;

export type CodeIntelligenceToolName = (typeof CODE_INTELLIGENCE_TOOL_NAMES)[number];

const POSITION = {
  path: Type.String({ description: "The file, relative to the project or absolute." }),
  symbolName: Type.Optional(
    Type.String({
      description:
        "The symbol to look at, by name as it appears in the file (the occurrence nearest to line is used when line is given).",
    }),
  ),
  line: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line number." })),
  character: Type.Optional(
    Type.Integer({ minimum: 1, description: "1-based column; with line, an exact position." }),
  ),
};
const CLOSED = { additionalProperties: false } as const;
const positionOnly = Type.Object(POSITION, CLOSED);

/** Each tool's parameters (TypeBox schemas, plain JSON Schema at run time). */
export const CODE_INTELLIGENCE_PARAMETERS = {
  find_definition: positionOnly,
  find_references: Type.Object(
    {
      ...POSITION,
      includeDeclaration: Type.Optional(
        Type.Boolean({ description: "Also list the declaration (default false)." }),
      ),
    },
    CLOSED,
  ),
  get_document_symbols: Type.Object({ path: POSITION.path }, CLOSED),
  find_symbol: Type.Object(
    {
      query: Type.String({ minLength: 1, description: "The name or part of it." }),
      path: Type.Optional(
        Type.String({
          description: "A file whose language server to ask (default: every language server of the project).",
        }),
      ),
    },
    CLOSED,
  ),
  get_hover_info: positionOnly,
  get_call_hierarchy: Type.Object(
    {
      ...POSITION,
      direction: Type.Optional(
        StringEnum(["incoming", "outgoing", "both"], { description: "Which calls to list (default both)." }),
      ),
      depth: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 3, description: "Levels to follow (default 1)." }),
      ),
    },
    CLOSED,
  ),
  find_implementations: positionOnly,
  get_type_hierarchy: Type.Object(
    {
      ...POSITION,
      direction: Type.Optional(
        StringEnum(["supertypes", "subtypes", "both"], { description: "Which way to look (default both)." }),
      ),
    },
    CLOSED,
  ),
  get_diagnostics: Type.Object(
    { path: Type.Optional(Type.String({ description: "The file (default: the files touched so far)." })) },
    CLOSED,
  ),
} as const satisfies Record<CodeIntelligenceToolName, TObject>;

/** The arguments of a code-intelligence tool, typed from its schema. */
export type CodeIntelligenceArgs<N extends CodeIntelligenceToolName> = Static<
  (typeof CODE_INTELLIGENCE_PARAMETERS)[N]
>;

/** What each tool is for, as the model reads it. */
export const CODE_INTELLIGENCE_DESCRIPTIONS: Readonly<Record<CodeIntelligenceToolName, string>> = {
  find_definition:
    "Go to the definition of a symbol (function, class, variable, type) with a language server, following imports across files. Give path and symbolName (or line/character).",
  find_references:
    "Find every use of a symbol across the project with a language server, grouped by file. Use it before changing shared code.",
  get_document_symbols:
    "Outline of a file from its language server: classes, functions, methods and their line ranges, nested. Cheaper than reading a large file.",
  find_symbol:
    "Search the project's symbols (functions, classes, types…) by name with the language servers' index, when you do not know which file defines them.",
  get_hover_info: "Type signature and documentation of a symbol, from its language server.",
  get_call_hierarchy:
    "Trace calls of a function or method: incoming (who calls it) and/or outgoing (what it calls), from its language server.",
  find_implementations:
    "Find the concrete implementations of an interface, abstract class or method (subclasses and overriding methods where the server has no implementation search).",
  get_type_hierarchy: "Inheritance of a class or interface: its supertypes and/or subtypes.",
  get_diagnostics:
    "Errors and warnings the language server reports for a file, or, without path, for every file opened or changed in this session.",
};

/** The nine tools' definitions: names and parameters as the code-intelligence contract gives them. */
export function codeIntelligenceDefinitions(): Record<CodeIntelligenceToolName, ToolDefinition> {
  const entries = CODE_INTELLIGENCE_TOOL_NAMES.map((name) => [
    name,
    {
      name,
      description: CODE_INTELLIGENCE_DESCRIPTIONS[name],
      parameters: JSON.parse(
        JSON.stringify(CODE_INTELLIGENCE_PARAMETERS[name]),
      ) as ToolDefinition["parameters"],
    },
  ]);
  return Object.fromEntries(entries) as Record<CodeIntelligenceToolName, ToolDefinition>;
}

/**
 * What a host shows while code-intelligence tools run: "Analyzing code", "Searching codebase",
 * "Inspecting file structure" or "Checking diagnostics"; undefined for other tools.
 */
export function codeIntelligenceTitle(toolName: string): string | undefined {
  switch (toolName) {
    case "find_definition":
    case "find_references":
    case "find_implementations":
    case "get_hover_info":
    case "get_call_hierarchy":
    case "get_type_hierarchy":
      return "Analyzing code";
    case "find_symbol":
      return "Searching codebase";
    case "get_document_symbols":
      return "Inspecting file structure";
    case "get_diagnostics":
      return "Checking diagnostics";
    default:
      return undefined;
  }
}
