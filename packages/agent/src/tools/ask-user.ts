import { type Static, Type } from "@sinclair/typebox";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";

/** A question the model puts to the user. */
export interface UserQuestion {
  readonly question: string;
  /** Choices to pick from; free text when absent. */
  readonly options?: readonly string[];
}

export interface AskUserToolOptions {
  /**
   * Puts the question to the user and resolves with the answer; undefined when nobody can answer
   * (a non-interactive run). Rejecting makes the call an error result, never a crash.
   */
  readonly ask: (question: UserQuestion, signal?: AbortSignal) => Promise<string | undefined>;
  /** What the model is told when `ask` resolves undefined. */
  readonly noUserMessage?: string;
}

/** The default answer for runs without a user. */
export const NO_USER_MESSAGE =
  "No user is present to answer questions: this is a non-interactive run. Do not ask again. Choose the most reasonable option yourself, say which assumption you made in your final answer, and carry on with the task.";

const DESCRIPTION = [
  "Asks the user a question and waits for the answer.",
  "Use it only when you cannot proceed well without the user's input: an ambiguous requirement, a choice between approaches with real trade-offs, or a missing fact you cannot find in the project.",
  "Offer options when the plausible answers are few; the user may still answer in their own words.",
  "Do not use it to ask for permission to run tools (that is handled separately) or to confirm that you should continue.",
].join(" ");

const ASK_USER_PARAMETERS = Type.Object(
  {
    question: Type.String({ minLength: 1, description: "The question, complete and specific." }),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: "Answers to choose from, when there are a few obvious ones.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** ask_user's arguments. */
export type AskUserArgs = Static<typeof ASK_USER_PARAMETERS>;

/** Checks what the schema cannot (blank text); returns the question or a message the model can act on. */
function parseQuestion(args: AskUserArgs): UserQuestion | string {
  const question = args.question.trim();
  if (question === "") return '"question" must be a non-empty string.';
  if (args.options === undefined) return { question };
  if (!args.options.every((o) => o.trim() !== "")) return '"options" must be an array of non-empty strings.';
  const options = [...new Set(args.options.map((o) => o.trim()))];
  return options.length > 0 ? { question, options } : { question };
}

/** The `ask_user` tool: a question with optional options, answered through the host's `ask`. */
export function createAskUserTool(options: AskUserToolOptions): RegisteredTool {
  return defineBuiltinTool({
    name: "ask_user",
    description: DESCRIPTION,
    parameters: ASK_USER_PARAMETERS,
    readOnly: true,
    execute: async (args, context): Promise<ToolOutput> => {
      const parsed = parseQuestion(args);
      if (typeof parsed === "string")
        return {
          output: `The question was not asked: ${parsed}`,
          isError: true,
          errorCode: "invalid_argument",
        };
      let answer: string | undefined;
      try {
        answer = await options.ask(parsed, context.signal);
      } catch (err) {
        return {
          output: `The question could not be asked: ${err instanceof Error ? err.message : String(err)}`,
          isError: true,
          errorCode: "ask_failed",
        };
      }
      if (answer === undefined)
        return {
          output: options.noUserMessage ?? NO_USER_MESSAGE,
          isError: true,
          errorCode: "no_user",
          details: { answered: false },
        };
      return { output: `The user answered: ${answer}`, details: { answered: true, answer } };
    },
  });
}
