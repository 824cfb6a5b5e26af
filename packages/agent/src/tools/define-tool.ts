import { type Static, type TObject, type TUnsafe, Type } from "@sinclair/typebox";
import type { RegisteredTool, ToolCallContext, ToolOutput } from "../types/tool.js";
import { builtinSchema } from "./schema.js";
import { expectedFailure } from "./shared/tool-errors.js";
import { checkRegisteredTool } from "./tool-shape.js";

/** A tool described by a TypeBox object schema; execute's arguments are typed from it. */
export interface ToolSpec<P extends TObject> {
  /** [a-zA-Z][a-zA-Z0-9_-]*, at most 64 characters. */
  readonly name: string;
  readonly description: string;
  /** A TypeBox `Type.Object(...)`: plain JSON Schema at run time, the arguments' type at compile time. */
  readonly parameters: P;
  /**
   * Runs a call whose arguments have already been validated against `parameters`. Returns text
   * or a ToolOutput; an expected failure is thrown as a ToolError (or EnvironmentError), whose
   * message the model sees and whose code hosts see; any other throw is reported as a tool bug.
   */
  readonly execute: (
    args: Static<P>,
    context: ToolCallContext,
  ) => Promise<string | ToolOutput> | string | ToolOutput;
  /** True for tools that never change files or run commands (read-only modes offer only these). */
  readonly readOnly?: boolean;
  /**
   * Paths a call would modify (see RegisteredTool.targets). Called to order parallel calls, which
   * may happen before the arguments are validated: a throw counts as "could write anywhere".
   */
  readonly targets?: (args: Static<P>) => readonly string[];
}

/** A schema as plain JSON data: TypeBox's symbol-keyed markers dropped, nothing else changed. */
function plainSchema(schema: TObject): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function build<P extends TObject>(spec: ToolSpec<P>, mark: boolean): RegisteredTool {
  const parameters = plainSchema(spec.parameters);
  const { execute, targets } = spec;
  // The dispatcher validates arguments against `parameters` before calling the executor, so they
  // have the schema's type by the time they reach execute.
  return checkRegisteredTool({
    definition: {
      name: spec.name,
      description: spec.description,
      parameters: mark ? builtinSchema(parameters) : parameters,
    },
    // One failure contract for direct callers too: a thrown ToolError or EnvironmentError comes
    // back as an error result carrying its code; anything else propagates as a bug.
    executor: async (args, environment, context) => {
      try {
        return await execute(args as Static<P>, { ...context, environment });
      } catch (err) {
        return expectedFailure(err);
      }
    },
    ...(spec.readOnly !== undefined && { readOnly: spec.readOnly }),
    ...(targets !== undefined && { targets: (args) => targets(args as Static<P>) }),
  } satisfies RegisteredTool);
}

/**
 * Defines a tool from a TypeBox schema: `execute` receives arguments typed from `parameters`,
 * already validated. The result registers anywhere a tool does (ToolRegistry, Session's `tools`,
 * a profile's tool factories). Throws ToolDefinitionError when the name or schema is unusable.
 */
export function defineTool<P extends TObject>(spec: ToolSpec<P>): RegisteredTool {
  return build(spec, false);
}

/** defineTool for the tools this package ships, whose schemas a test checks against the meta-schema. */
export function defineBuiltinTool<P extends TObject>(spec: ToolSpec<P>): RegisteredTool {
  return build(spec, true);
}

/** A string schema limited to some values, as a plain `enum` (which every provider accepts). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { readonly description?: string; readonly default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: "string", enum: [...values] });
}
