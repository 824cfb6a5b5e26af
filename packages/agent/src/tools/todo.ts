import { Type } from "@sinclair/typebox";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool, StringEnum } from "./define-tool.js";

/** The states a todo entry moves through. */
export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;

export type TodoStatus = (typeof TODO_STATUSES)[number];

/** One entry of the model's todo list. */
export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: TodoStatus;
}

export interface TodoToolOptions {
  /** Receives the whole new list after every successful call (the host renders or stores it). */
  readonly onChange?: (todos: readonly TodoItem[]) => void;
  /** The list to start from (a resumed session); empty by default. */
  readonly initial?: readonly TodoItem[];
}

/** A todo tool plus read access to the list it keeps. */
export interface TodoTool extends RegisteredTool {
  /** The current list. */
  todos(): readonly TodoItem[];
  /** Replaces the list from the host (a cleared or resumed session); onChange hears it. */
  set(todos: readonly TodoItem[]): void;
}

const DESCRIPTION = [
  "Keeps a structured todo list for the current task, so you and the user can follow progress.",
  "Each call replaces the whole list: send every item, with its current status.",
  "Use it for tasks with three or more distinct steps, or when the user gives several tasks; skip it for a single trivial step.",
  'Statuses: "pending" (not started), "in_progress" (being worked on now: at most one item at a time), "completed" (fully done; do not mark an item completed while its tests fail or its work is partial).',
  "Mark an item in_progress before starting it and completed as soon as it is done, rather than in batches at the end.",
].join(" ");

const MARK: Readonly<Record<TodoStatus, string>> = {
  pending: "[ ]",
  in_progress: "[>]",
  completed: "[x]",
};

/** Checks a `todos` argument; returns the list or a message the model can act on. */
export function parseTodos(value: unknown): { readonly todos: TodoItem[] } | { readonly error: string } {
  if (!Array.isArray(value)) return { error: '"todos" must be an array of {content, status} objects.' };
  const todos: TodoItem[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of value.entries()) {
    const where = `todos[${index}]`;
    if (!raw || typeof raw !== "object" || Array.isArray(raw))
      return { error: `${where} must be an object with "content" and "status".` };
    const item = raw as Record<string, unknown>;
    const content = typeof item.content === "string" ? item.content.trim() : "";
    if (content === "") return { error: `${where}.content must be a non-empty string.` };
    if (!(TODO_STATUSES as readonly unknown[]).includes(item.status))
      return { error: `${where}.status must be one of ${TODO_STATUSES.map((s) => `"${s}"`).join(", ")}.` };
    const id =
      typeof item.id === "string" && item.id.trim() !== ""
        ? item.id.trim()
        : typeof item.id === "number"
          ? String(item.id)
          : String(index + 1);
    if (seen.has(id)) return { error: `${where}.id "${id}" is used twice; ids must be unique.` };
    seen.add(id);
    todos.push({ id, content, status: item.status as TodoStatus });
  }
  const active = todos.filter((t) => t.status === "in_progress");
  if (active.length > 1) {
    return {
      error: `Only one item may be in_progress at a time, but ${active.length} are (${active.map((t) => `"${t.content}"`).join(", ")}). Keep the one you are working on in_progress and set the others to pending or completed.`,
    };
  }
  return { todos };
}

/** Renders a list as the tool reports it: one `[x] content` line per item. */
export function formatTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "The todo list is empty.";
  const count = (s: TodoStatus) => todos.filter((t) => t.status === s).length;
  const head = `Todo list updated: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending.`;
  return [head, ...todos.map((t) => `${MARK[t.status]} ${t.content}`)].join("\n");
}

const TODO_PARAMETERS = Type.Object(
  {
    todos: Type.Array(
      Type.Object(
        {
          id: Type.Optional(
            Type.String({ description: "A stable id for the item (its position when omitted)." }),
          ),
          content: Type.String({ minLength: 1, description: "What to do, in a few words." }),
          status: StringEnum(TODO_STATUSES),
        },
        { additionalProperties: false },
      ),
      { description: "The complete updated list, in order." },
    ),
  },
  { additionalProperties: false },
);

/**
 * The `todo` tool: the model sends its whole todo list on each call (statuses pending,
 * in_progress, completed; at most one in_progress); the host hears about it through onChange.
 */
export function createTodoTool(options: TodoToolOptions = {}): TodoTool {
  let current: readonly TodoItem[] = [...(options.initial ?? [])];
  const tool = defineBuiltinTool({
    name: "todo",
    description: DESCRIPTION,
    parameters: TODO_PARAMETERS,
    readOnly: true,
    execute: async (args): Promise<ToolOutput> => {
      // The schema checks each item's shape; the list's own rules (one in_progress, unique ids) are checked here.
      const parsed = parseTodos(args.todos);
      if ("error" in parsed)
        return {
          output: `The todo list was not changed: ${parsed.error}`,
          isError: true,
          errorCode: "invalid_argument",
        };
      current = parsed.todos;
      options.onChange?.(current);
      return { output: formatTodos(current), details: { todos: current } };
    },
  });
  return {
    ...tool,
    todos: () => current,
    set(todos) {
      current = [...todos];
      options.onChange?.(current);
    },
  };
}
