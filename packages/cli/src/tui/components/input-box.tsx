import { stat } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { Box, type Key, Text } from "ink";
import { type ReactNode, useContext, useLayoutEffect, useRef, useState } from "react";
import { type ClipboardImage, readClipboardImage } from "../input/clipboard.js";
import {
  type DraftAttachments,
  imageToken,
  NO_ATTACHMENTS,
  nextId,
  pasteToken,
  placeholderBefore,
  resolveDraft,
  shouldCollapse,
  withImage,
  withPaste,
} from "../input/draft-attachments.js";
import {
  backspace,
  charAt,
  deleteForward,
  deleteWordAfter,
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
  moveWord,
  removedText,
} from "../input/editor.js";
import type { InputHistory } from "../input/history.js";
import { type ImageAttachment, imageFromBytes, pastedImagePaths, readImageFile } from "../input/images.js";
import { splitTypedChunk } from "../input/key-chunks.js";
import { useKeyHandoff } from "../input/key-handoff.js";
import { isNewlineEnter, useKeys } from "../input/keys.js";
import { heldForDraft, TypingGuardContext } from "../input/typing-guard.js";
import type { InputFill } from "../transcript/model.js";
import { HistorySearchView } from "./history-search-view.js";

/** Sent drafts whose placeholders are kept for recall. */
const MAX_REMEMBERED = 50;
const PASTE_START = "[200~";
const PASTE_END = "[201~";

/** What a sent draft carries besides its text. */
export interface SentDraft {
  /** Images whose `[Image #N]` placeholders are in the text, in order. */
  readonly images: readonly ImageAttachment[];
  /** The draft as the input showed it (pastes collapsed), when that differs from the text sent. */
  readonly shown?: string;
}

/** Ctrl+R state: the query, how many older matches were skipped, and the draft to go back to. */
interface Search {
  readonly query: string;
  readonly skip: number;
  readonly draft: EditorState;
}

/**
 * The prompt: a multi-line editor. Enter sends; a trailing backslash or Alt+Enter (or Ctrl+J)
 * adds a line; ↑/↓ move between lines, then through the history; Ctrl+R searches the history
 * (Ctrl+R again for an older match, Enter takes it, Esc goes back); Tab completes via `complete`,
 * or, with nothing to complete, hands the text to `onQueue` when given; Ctrl+A/E, Ctrl+U/K/W
 * edit like a shell. A bracketed paste is inserted verbatim, shown as `[Pasted text #N +M lines]`
 * when large, or attached as `[Image #N]` when it is the path of an image file; Ctrl+V attaches
 * the clipboard's image. Placeholders are expanded (images handed over) when the text is sent.
 * Each of `fills` is put into the editor once (after what is typed, on a line of its own).
 */
export function InputBox({
  onSubmit,
  onQueue,
  onChange,
  onCtrlC,
  onCtrlD,
  onNotice,
  onSearching,
  readClipboard = readClipboardImage,
  refuseImages,
  acceptImages = true,
  isDraft = false,
  baseDir = process.cwd(),
  history,
  complete,
  fills,
  isActive = true,
  placeholder,
  prefix = "›",
}: {
  readonly onSubmit: (text: string, draft: SentDraft) => void;
  /** Tab with text that is no command being completed: the text is sent this way instead. */
  readonly onQueue?: (text: string, draft: SentDraft) => void;
  /** A paste or clipboard image that could not be attached, said for the user. */
  readonly onNotice?: (text: string) => void;
  /** Told when Ctrl+R search opens (true) and closes (false, after the key that closed it). */
  readonly onSearching?: (active: boolean) => void;
  readonly readClipboard?: () => Promise<ClipboardImage>;
  /** Why images cannot be sent now (the model takes none), or undefined when they can. */
  readonly refuseImages?: () => string | undefined;
  /** The main prompt's draft: keys typed just before a question appears stay in it (typing-guard). */
  readonly isDraft?: boolean;
  /** False where only text is taken (an answer to a question): image paths stay text, Ctrl+V does nothing. */
  readonly acceptImages?: boolean;
  /** Relative image paths in pastes are taken from here. */
  readonly baseDir?: string;
  /** Text given back to the user to edit (a rewound message); each id is applied once. */
  readonly fills?: readonly InputFill[];
  /** Called with the new text after every edit. */
  readonly onChange?: (text: string) => void;
  /** Ctrl+C pressed in the box, with the draft it held (the box then clears it). */
  readonly onCtrlC?: (draft: string) => void;
  /** Ctrl+D pressed over an empty box (elsewhere it deletes the character under the cursor). */
  readonly onCtrlD?: () => void;
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
  const pasted = useRef("");
  const attachments = useRef<DraftAttachments>(NO_ATTACHMENTS);
  const [search, setSearchRaw] = useState<Search | undefined>(undefined);
  const searchRef = useRef(search);
  const setSearch = (next: Search | undefined) => {
    const was = searchRef.current !== undefined;
    searchRef.current = next;
    setSearchRaw(next);
    if (was === (next !== undefined)) return;
    // Deferred: the key that closed the search is still being handed to other listeners (Esc
    // must not also interrupt the agent).
    if (next === undefined) setImmediate(() => onSearching?.(false));
    else onSearching?.(true);
  };
  const setState = (next: EditorState) => {
    if (next === ref.current) return;
    const changed = next.text !== ref.current.text;
    ref.current = next;
    setStateRaw(next);
    if (changed) onChange?.(next.text);
  };
  // Fills that exist when the box mounts are old news; only later ones are applied.
  const lastFill = useRef(fills?.at(-1)?.id ?? 0);
  // In the commit that brings the fill, so no frame shows the input without it.
  useLayoutEffect(() => {
    const fresh = (fills ?? []).filter((f) => f.id > lastFill.current);
    if (fresh.length === 0) return;
    lastFill.current = fresh.at(-1)?.id ?? lastFill.current;
    const typed = ref.current.text;
    const given = fresh.map((f) => f.text).join("\n");
    // A message of this run given back (its turn failed) comes back as it was sent: a large
    // paste collapsed again, its images attached.
    if (typed === "" && sent.current.has(given.trim())) return recall(given);
    setState(editorWith(typed === "" ? given : `${typed}\n${given}`));
  });

  /** The last text killed (Ctrl+W/U/K, Alt+Backspace/D, a draft cleared by Ctrl+C), for Ctrl+Y. */
  const killRing = useRef("");
  const kill = (before: EditorState, after: EditorState) => {
    const cut = removedText(before, after);
    if (cut !== "") killRing.current = cut;
    setState(after);
  };
  const onKeyRef = useRef<(input: string, key: Key) => void>(() => {});
  onKeyRef.current = (input, key) => onKey(input, key);
  const onKey = (input: string, key: Key) => {
    const s = ref.current;
    if (input === PASTE_START) {
      pasting.current = true;
      pasted.current = "";
      return;
    }
    if (input === PASTE_END) {
      pasting.current = false;
      const text = pasted.current.replace(/\r\n?/g, "\n");
      pasted.current = "";
      if (searchRef.current) searchKey(text.replace(/\n/g, " "), key);
      else void takePaste(text);
      return;
    }
    if (pasting.current) {
      pasted.current += key.return ? "\n" : key.tab ? "\t" : input;
      return;
    }
    const keys = splitTypedChunk(input);
    if (keys) {
      for (const k of keys) onKey(k.input, k.key);
      return;
    }
    if (searchRef.current) {
      searchKey(input, key);
      return;
    }
    if (key.escape || (key.tab && key.shift)) return;
    if (key.ctrl && input === "c") {
      // Told before the draft is cleared, so the owner knows whether this press cleared one.
      onCtrlC?.(s.text);
      // The cleared draft is the last kill: Ctrl+Y brings it back.
      if (s.text !== "") {
        killRing.current = s.text;
        clear();
      }
      return;
    }
    if (key.ctrl && input === "d" && s.text === "" && onCtrlD) {
      onCtrlD();
      return;
    }
    if (key.ctrl && input === "y") {
      if (killRing.current !== "") setState(insert(s, killRing.current));
      return;
    }
    if (key.ctrl && input === "r") {
      if (!history) return;
      leaveDraft();
      setSearch({ query: "", skip: 0, draft: s });
      return;
    }
    if (key.ctrl && input === "v") {
      if (acceptImages) void pasteClipboardImage();
      return;
    }
    if (isNewlineEnter(key)) {
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
      if (!history) return;
      if (direction < 0) {
        const entry = history.previous(s.text);
        if (entry === undefined) return;
        leaveDraft();
        recall(entry);
        return;
      }
      const entry = history.next();
      if (entry === undefined) return;
      if (history.browsing()) recall(entry);
      else backToDraft(editorWith(entry));
      return;
    }
    if (key.leftArrow) return setState(key.ctrl || key.meta ? moveWord(s, -1) : moveHorizontal(s, -1));
    if (key.rightArrow) return setState(key.ctrl || key.meta ? moveWord(s, 1) : moveHorizontal(s, 1));
    if (key.meta && input === "b") return setState(moveWord(s, -1));
    if (key.meta && input === "f") return setState(moveWord(s, 1));
    if (key.meta && input === "d") return kill(s, deleteWordAfter(s));
    if (key.home || (key.ctrl && input === "a")) return setState(moveLineEdge(s, "start"));
    if (key.end || (key.ctrl && input === "e")) return setState(moveLineEdge(s, "end"));
    // Most terminals send DEL (0x7f) for Backspace, which Ink names "delete".
    if ((key.backspace || key.delete) && (key.meta || key.ctrl)) return kill(s, deleteWordBefore(s));
    if (key.backspace || key.delete) {
      // A placeholder goes as one piece: half of one would stand for nothing.
      const whole = placeholderBefore(s.text, s.cursor, attachments.current);
      if (whole > 0)
        return setState({
          text: s.text.slice(0, s.cursor - whole) + s.text.slice(s.cursor),
          cursor: s.cursor - whole,
        });
      return setState(backspace(s));
    }
    if (key.ctrl && input === "d") return setState(deleteForward(s));
    if (key.ctrl && input === "w") return kill(s, deleteWordBefore(s));
    if (key.ctrl && input === "u") return kill(s, killToLineStart(s));
    if (key.ctrl && input === "k") return kill(s, killToLineEnd(s));
    if (key.ctrl || key.meta || input === "") return;
    setState(insert(s, input));
  };
  // Ink drops a handler only after the frame that deactivates it: until then, keys are not ours.
  const active = useRef(isActive);
  active.current = isActive;
  const guard = useContext(TypingGuardContext);
  const ownKey = (input: string, key: Key) => {
    if (!active.current) return;
    if (!isDraft && heldForDraft(guard, input, key)) return;
    onKey(input, key);
    // Only a draft being written counts: after Enter sent it, a prompt it brings is expected.
    if (isDraft && guard) guard.current.lastTyped = ref.current.text !== "" ? Date.now() : 0;
  };
  // The draft takes the keys held for it even while hidden behind a question.
  useLayoutEffect(() => {
    if (!isDraft || guard === undefined) return;
    guard.current.draft = (input, key) => onKeyRef.current(input, key);
    return () => {
      guard.current.draft = undefined;
    };
  }, [isDraft, guard]);
  useKeys(ownKey, { isActive });
  useKeyHandoff(ownKey, isActive);

  /** Drafts sent in this run, by the text sent: recalling one brings its placeholders back. */
  const sent = useRef(new Map<string, { shown: string; attachments: DraftAttachments }>());
  const remember = (text: string, shown: string) => {
    if (shown === text) return;
    const key = text.trim();
    sent.current.delete(key);
    sent.current.set(key, { shown, attachments: attachments.current });
    if (sent.current.size > MAX_REMEMBERED) sent.current.delete(sent.current.keys().next().value as string);
  };
  /** The draft's attachments while the history is browsed or searched. */
  const savedDraft = useRef<DraftAttachments | undefined>(undefined);
  const leaveDraft = () => {
    savedDraft.current ??= attachments.current;
  };
  const backToDraft = (draft: EditorState) => {
    attachments.current = savedDraft.current ?? attachments.current;
    savedDraft.current = undefined;
    setState(draft);
  };
  /** Puts a history entry in the editor, collapsed pastes and images as they were sent. */
  const recall = (entry: string) => {
    const draft = sent.current.get(entry.trim());
    attachments.current = draft?.attachments ?? NO_ATTACHMENTS;
    setState(editorWith(draft?.shown ?? entry));
  };

  const clear = () => {
    attachments.current = NO_ATTACHMENTS;
    savedDraft.current = undefined;
    setState(EMPTY_EDITOR);
  };

  const submit = (shown: string, send: (text: string, draft: SentDraft) => void = onSubmit) => {
    if (shown.trim() === "") return;
    const { text, images } = resolveDraft(shown, attachments.current);
    const refused = images.length > 0 ? refuseImages?.() : undefined;
    if (refused !== undefined) {
      // The draft stays: the user may remove the image or switch to a model that reads images.
      onNotice?.(refused);
      return;
    }
    history?.push(text);
    remember(text, shown);
    clear();
    send(text, { images, ...(shown !== text && { shown }) });
  };

  /** Inserts at the cursor as it is when called (an image may be read after more keys came). */
  const insertNow = (chunk: string) => setState(insert(ref.current, chunk));

  const attachImage = (image: ImageAttachment) => {
    const id = nextId(attachments.current, "image");
    attachments.current = withImage(attachments.current, id, image);
    insertNow(imageToken(id));
  };

  /** A finished bracketed paste: image files' paths, a large text, or text to insert. */
  const takePaste = async (text: string) => {
    const named = acceptImages ? pastedImagePaths(text, baseDir) : undefined;
    if (named !== undefined) {
      // Only files that exist are taken: pasted prose that ends in ".png" is text.
      const whole = named.whole !== undefined && (await isFile(named.whole)) ? [named.whole] : undefined;
      const words =
        named.words && (await Promise.all(named.words.map(isFile))).every(Boolean) ? named.words : undefined;
      const paths = whole ?? words ?? [];
      if (paths.length > 0) return attachFiles(paths, text);
    }
    if (shouldCollapse(text)) {
      const id = nextId(attachments.current, "paste");
      attachments.current = withPaste(attachments.current, id, text);
      insertNow(pasteToken(id, text));
      return;
    }
    insertNow(text);
  };

  /** Attaches pasted image files, one placeholder each; a file that cannot go stays as its path. */
  const attachFiles = async (paths: readonly string[], text: string) => {
    for (const [i, path] of paths.entries()) {
      if (i > 0) insertNow(" ");
      try {
        attachImage(await readImageFile(path, shownPath(path)));
      } catch (error) {
        // The path is kept as text: nothing pasted is lost.
        onNotice?.(`Image not attached: ${error instanceof Error ? error.message : String(error)}`);
        insertNow(paths.length === 1 ? text.trim() : shownPath(path));
      }
    }
  };

  /** A path as messages show it: relative inside the base directory, absolute outside. */
  const shownPath = (path: string) => {
    const rel = relative(baseDir, path);
    return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
  };

  const pasteClipboardImage = async () => {
    const got = await readClipboard();
    if (got.kind === "none") {
      onNotice?.(`No image pasted: ${got.reason}`);
      return;
    }
    try {
      attachImage(imageFromBytes(got.bytes, "clipboard"));
    } catch (error) {
      onNotice?.(`Image not attached: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  /** A key while Ctrl+R search is open. */
  const searchKey = (input: string, key: Key) => {
    const current = searchRef.current;
    if (!current || !history) return;
    const matches = history.matches(current.query);
    const match = matches[Math.min(current.skip, matches.length - 1)];
    if (key.escape || (key.ctrl && (input === "c" || input === "g"))) {
      setSearch(undefined);
      backToDraft(current.draft);
      return;
    }
    if (key.ctrl && input === "r") {
      if (current.skip + 1 < matches.length) setSearch({ ...current, skip: current.skip + 1 });
      return;
    }
    if (key.return || key.tab || key.leftArrow || key.rightArrow || key.upArrow || key.downArrow) {
      setSearch(undefined);
      if (match === undefined) backToDraft(current.draft);
      else {
        // The entry taken is the draft now, with what its placeholders stand for.
        recall(match);
        savedDraft.current = undefined;
      }
      return;
    }
    if (key.backspace || key.delete) {
      setSearch({ ...current, query: current.query.slice(0, -1), skip: 0 });
      return;
    }
    if (key.ctrl || key.meta || input === "") return;
    setSearch({ ...current, query: current.query + input, skip: 0 });
  };

  if (search && history) {
    const matches = history.matches(search.query);
    return (
      <HistorySearchView
        query={search.query}
        match={matches[Math.min(search.skip, matches.length - 1)]}
        prefix={prefix}
      />
    );
  }

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

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
