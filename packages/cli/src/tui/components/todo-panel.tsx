import type { TodoItem } from "@attractor/runtime";
import { Box, Text } from "ink";
import type { ReactNode } from "react";

const MARKS: Readonly<Record<TodoItem["status"], string>> = {
  pending: "☐",
  in_progress: "◐",
  completed: "☒",
};

/** The model's todo list: done items struck through, the current one highlighted. */
export function TodoPanel({ todos }: { readonly todos: readonly TodoItem[] }): ReactNode {
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>
        Todos{" "}
        <Text dimColor>
          {done}/{todos.length}
        </Text>
      </Text>
      {todos.map((todo) => (
        <Box key={todo.id} paddingLeft={2}>
          <Text
            color={
              todo.status === "in_progress" ? "yellow" : todo.status === "completed" ? "green" : undefined
            }
            dimColor={todo.status === "completed"}
          >
            {MARKS[todo.status]}{" "}
            <Text strikethrough={todo.status === "completed"} bold={todo.status === "in_progress"}>
              {todo.content}
            </Text>
          </Text>
        </Box>
      ))}
    </Box>
  );
}
