import { Box, Text, useInput } from "ink";
import { type ReactNode, useEffect, useRef, useState } from "react";
import {
  backspace,
  charAt,
  deleteForward,
  deleteWordBefore,
  type EditorState,
  EMPTY_EDITOR,
  editorWith,
  insert,
  killToLineEnd,
  killToLineStart,
  moveHorizontal,
  moveLineEdge,
  moveVertical,
} from "../input/editor.js";
import type { InputHistory } from "../input/history.js";
import type { InputFill } from "../transcript/model.js";

const PASTE_START = "[200~";
const PASTE_END = "[201~";

/**
 * The prompt: a multi-line editor. Enter sends; a trailing backslash or Alt+Enter (or Ctrl+J)
 * adds a line; ↑/↓ move between lines, then through the history; Tab completes via `complete`,
 * or, with nothing to complete, hands the text to `onQueue` when given; Ctrl+A/E, Ctrl+U/K/W
 * edit like a shell; bracketed pastes are inserted verbatim. Each of `fills` is put into the
 * editor once (after what is typed, on a line of its own).
 */
export function InputBox({
  onSubmit,
  onQueue,
  onChange,
  onCtrlC,
  history,
  complete,
  fills,
  isActive = true,
  placeholder,
  prefix = "›",
}: {
  readonly onSubmit: (text: string) => void;
  /** Tab with text that is no command being completed: the text is sent this way instead. */
  readonly onQueue?: (text: string) => void;
  /** Text given back to the user to edit (a rewound message); each id is applied once. */
  readonly fills?: readonly InputFill[];
  /** Called with the new text after every edit. */
  readonly onChange?: (text: string) => void;
  /** Ctrl+C pressed in the box, with the draft it held (the box then clears it). */
  readonly onCtrlC?: (draft: string) => void;
  readonly history?: InputHistory;
  /** Returns the completed text for Tab, or undefined when there is nothing to complete. */
  readonly complete?: (text: string) => string | undefined;
  readonly isActive?: boolean;
  readonly placeholder?: string;
  readonly prefix?: string;
}): ReactNode {
  const [state, setStateRaw] = useState<EditorState>(EMPTY_EDITOR);
  // Keys can arrive faster than renders; the ref always holds the latest state.
  const ref = useRef(state);
  const pasting = useRef(false);
  const setState = (next: EditorState) => {
    if (next === ref.current) return;
    const changed = next.text !== ref.current.text;
    ref.current = next;
    setStateRaw(next);
    if (changed) onChange?.(next.text);
  };
  // Fills that exist when the box mounts are old news; only later ones are applied.
  const lastFill = useRef(fills?.at(-1)?.id ?? 0);
  useEffect(() => {
    const fresh = (fills ?? []).filter((f) => f.id > lastFill.current);
    if (fresh.length === 0) return;
    lastFill.current = fresh.at(-1)?.id ?? lastFill.current;
    const typed = ref.current.text;
    const given = fresh.map((f) => f.text).join("\n");
    setState(editorWith(typed === "" ? given : `${typed}\n${given}`));
  });

  useInput(
    (input, key) => {
      const s = ref.current;
      if (input === PASTE_START) {
        pasting.current = true;
        return;
      }
      if (input === PASTE_END) {
        pasting.current = false;
        return;
      }
      if (pasting.current) {
        setState(insert(s, key.return ? "\n" : input));
        return;
      }
      if (key.escape || (key.tab && key.shift)) return;
      if (key.ctrl && input === "c") {
        // Told before the draft is cleared, so the owner knows whether this press cleared one.
        onCtrlC?.(s.text);
        if (s.text !== "") setState(EMPTY_EDITOR);
        return;
      }
      if (key.return && key.meta) {
        setState(insert(s, "\n"));
        return;
      }
      if (key.return || input === "\r") {
        if (s.text.slice(0, s.cursor).endsWith("\\")) {
          setState(insert(backspace(s), "\n"));
          return;
        }
        submit(s.text);
        return;
      }
      if (input === "\n" || (key.ctrl && input === "j")) {
        setState(insert(s, "\n"));
        return;
      }
      if (key.tab) {
        const completed = complete?.(s.text);
        if (completed !== undefined) setState(editorWith(completed));
        else if (onQueue && s.text.trim() !== "") submit(s.text, onQueue);
        return;
      }
      if (key.upArrow || key.downArrow) {
        const direction = key.upArrow ? -1 : 1;
        const moved = moveVertical(s, direction);
        if (moved) {
          setState(moved);
          return;
        }
        const entry = direction < 0 ? history?.previous(s.text) : history?.next();
        if (entry !== undefined) setState(editorWith(entry));
        return;
      }
      if (key.leftArrow) return setState(moveHorizontal(s, -1));
      if (key.rightArrow) return setState(moveHorizontal(s, 1));
      if (key.home || (key.ctrl && input === "a")) return setState(moveLineEdge(s, "start"));
      if (key.end || (key.ctrl && input === "e")) return setState(moveLineEdge(s, "end"));
      // Most terminals send DEL (0x7f) for Backspace, which Ink names "delete".
      if ((key.backspace || key.delete) && key.meta) return setState(deleteWordBefore(s));
      if (key.backspace || key.delete) return setState(backspace(s));
      if (key.ctrl && input === "d") return setState(deleteForward(s));
      if (key.ctrl && input === "w") return setState(deleteWordBefore(s));
      if (key.ctrl && input === "u") return setState(killToLineStart(s));
      if (key.ctrl && input === "k") return setState(killToLineEnd(s));
      if (key.ctrl || key.meta || input === "") return;
      // Without bracketed paste, a typed line may arrive with its Enter in one chunk.
      if (input.length > 1 && input.endsWith("\r") && !input.slice(0, -1).includes("\r")) {
        const typed = insert(s, input.slice(0, -1));
        if (typed.text.slice(0, typed.cursor).endsWith("\\")) setState(insert(backspace(typed), "\n"));
        else submit(typed.text);
        return;
      }
      setState(insert(s, input));
    },
    { isActive },
  );

  const submit = (text: string, send: (text: string) => void = onSubmit) => {
    if (text.trim() === "") return;
    history?.push(text);
    setState(EMPTY_EDITOR);
    send(text);
  };

  return (
    <Box flexDirection="column">
      <EditorView state={state} placeholder={placeholder} prefix={prefix} showCursor={isActive} />
    </Box>
  );
}

function EditorView({
  state,
  placeholder,
  prefix,
  showCursor,
}: {
  readonly state: EditorState;
  readonly placeholder: string | undefined;
  readonly prefix: string;
  readonly showCursor: boolean;
}): ReactNode {
  const lines = state.text.split("\n");
  let offset = 0;
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => {
        const start = offset;
        offset += line.length + 1;
        const cursorHere = showCursor && state.cursor >= start && state.cursor <= start + line.length;
        const col = state.cursor - start;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
          <Box key={i}>
            <Box width={2} flexShrink={0}>
              <Text color="blueBright" bold>
                {i === 0 ? prefix : " "}
              </Text>
            </Box>
            {state.text === "" && placeholder ? (
              <Text>
                {showCursor ? <Text inverse> </Text> : null}
                <Text dimColor>{placeholder}</Text>
              </Text>
            ) : cursorHere ? (
              <Text>
                {line.slice(0, col)}
                <Text inverse>{charAt(line, col) || " "}</Text>
                {line.slice(col + charAt(line, col).length)}
              </Text>
            ) : (
              <Text>{line || " "}</Text>
            )}
          </Box>
        );
      })}
    </Box>
  );
}
