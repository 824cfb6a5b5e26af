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

const position = {
  path: { type: "string", description: "The file, relative to the project or absolute." },
  symbolName: {
    type: "string",
    description:
      "The symbol to look at, by name as it appears in the file (the occurrence nearest to line is used when line is given).",
  },
  line: { type: "integer", minimum: 1, description: "1-based line number." },
  character: { type: "integer", minimum: 1, description: "1-based column; with line, an exact position." },
} as const;

const positionSchema = (extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties: { ...position, ...extra },
  required: ["path"],
  additionalProperties: false,
});

/** The nine tools' definitions: names and parameters as the code-intelligence contract gives them. */
export function codeIntelligenceDefinitions(): Record<CodeIntelligenceToolName, ToolDefinition> {
  return {
    find_definition: {
      name: "find_definition",
      description:
        "Go to the definition of a symbol (function, class, variable, type) with a language server, following imports across files. Give path and symbolName (or line/character).",
      parameters: positionSchema(),
    },
    find_references: {
      name: "find_references",
      description:
        "Find every use of a symbol across the project with a language server, grouped by file. Use it before changing shared code.",
      parameters: positionSchema({
        includeDeclaration: { type: "boolean", description: "Also list the declaration (default false)." },
      }),
    },
    get_document_symbols: {
      name: "get_document_symbols",
      description:
        "Outline of a file from its language server: classes, functions, methods and their line ranges, nested. Cheaper than reading a large file.",
      parameters: {
        type: "object",
        properties: { path: position.path },
        required: ["path"],
        additionalProperties: false,
      },
    },
    find_symbol: {
      name: "find_symbol",
      description:
        "Search the project's symbols (functions, classes, types…) by name with the language servers' index, when you do not know which file defines them.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, description: "The name or part of it." },
          path: {
            type: "string",
            description:
              "A file whose language server to ask (default: every language server of the project).",
          },
        },
        required: ["query"],
        additionalProperties: false,
      },
    },
    get_hover_info: {
      name: "get_hover_info",
      description: "Type signature and documentation of a symbol, from its language server.",
      parameters: positionSchema(),
    },
    get_call_hierarchy: {
      name: "get_call_hierarchy",
      description:
        "Trace calls of a function or method: incoming (who calls it) and/or outgoing (what it calls), from its language server.",
      parameters: positionSchema({
        direction: {
          type: "string",
          enum: ["incoming", "outgoing", "both"],
          description: "Which calls to list (default both).",
        },
        depth: { type: "integer", minimum: 1, maximum: 3, description: "Levels to follow (default 1)." },
      }),
    },
    find_implementations: {
      name: "find_implementations",
      description:
        "Find the concrete implementations of an interface, abstract class or method (subclasses and overriding methods where the server has no implementation search).",
      parameters: positionSchema(),
    },
    get_type_hierarchy: {
      name: "get_type_hierarchy",
      description: "Inheritance of a class or interface: its supertypes and/or subtypes.",
      parameters: positionSchema({
        direction: {
          type: "string",
          enum: ["supertypes", "subtypes", "both"],
          description: "Which way to look (default both).",
        },
      }),
    },
    get_diagnostics: {
      name: "get_diagnostics",
      description:
        "Errors and warnings the language server reports for a file, or, without path, for every file opened or changed in this session.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "The file (default: the files touched so far)." },
        },
        additionalProperties: false,
      },
    },
  };
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
