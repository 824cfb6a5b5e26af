import { Box, type Key, Text, useStdout } from "ink";
import { type ReactNode, useContext, useRef, useState } from "react";
import { useKeyHandoff } from "../input/key-handoff.js";
import { useKeys } from "../input/keys.js";
import { heldForDraft, TypingGuardContext } from "../input/typing-guard.js";

/** One option of a SelectList. */
export interface SelectOption {
  readonly label: string;
  readonly detail?: string;
  /** A key that picks this option at once (y, a, n…). */
  readonly hotkey?: string;
  readonly color?: string;
  /** Lines shown under the option when the user expands it (→); read when first expanded. */
  readonly preview?: () => Promise<readonly string[]>;
}

/** An expanded option's preview: being read, read, or failed to read. */
type Preview =
  | { readonly state: "loading" }
  | { readonly state: "shown"; readonly lines: readonly string[] }
  | { readonly state: "failed"; readonly message: string };

/** Preview lines shown at once under an expanded option. */
const PREVIEW_LINES = 12;

/** Options visible at once at most; longer lists scroll with the highlight. */
const MAX_WINDOW = 10;
/** Rows a dialog needs besides its options (the lines above it, its title and hints, the status line). */
const DIALOG_ROWS = 14;

/**
 * A vertical picker: ↑/↓ (or Tab) move, Enter picks, 1–9 and hotkeys pick directly, Esc cancels;
 * → expands the highlighted option's preview (when it has one) and ← folds it again.
 * A new `question` (any value naming what is asked) puts the highlight back at `initialIndex`.
 */
export function SelectList({
  options,
  onSelect,
  onCancel,
  isActive = true,
  ignoreKeys,
  initialIndex = 0,
  question,
}: {
  readonly options: readonly SelectOption[];
  readonly onSelect: (index: number) => void;
  readonly onCancel?: () => void;
  readonly isActive?: boolean;
  /** Asked on every key: while true, keys are left to someone else (read at once, unlike isActive). */
  readonly ignoreKeys?: () => boolean;
  readonly initialIndex?: number;
  readonly question?: unknown;
}): ReactNode {
  const [index, setIndexState] = useState(initialIndex);
  // Keys can arrive faster than renders; the ref always holds the latest highlight.
  const current = useRef(initialIndex);
  const setIndex = (next: number) => {
    current.current = next;
    setIndexState(next);
  };
  const [askedFor, setAskedFor] = useState(question);
  /** The expanded option and its preview (one at a time). */
  const [expanded, setExpanded] = useState<{ readonly at: number; readonly preview: Preview } | undefined>();
  if (askedFor !== question) {
    setAskedFor(question);
    setIndex(initialIndex);
    setExpanded(undefined);
  }
  const expand = (at: number) => {
    const read = latest.current.options[at]?.preview;
    if (!read) return;
    setExpanded({ at, preview: { state: "loading" } });
    read().then(
      (lines) =>
        setExpanded((shown) => (shown?.at === at ? { at, preview: { state: "shown", lines } } : shown)),
      (error: unknown) =>
        setExpanded((shown) =>
          shown?.at === at
            ? {
                at,
                preview: { state: "failed", message: error instanceof Error ? error.message : String(error) },
              }
            : shown,
        ),
    );
  };
  // A key can arrive after a render and before the input subscription is renewed: the handler
  // reads the props of the latest render, so it never answers a question no longer shown.
  const latest = useRef({ options, onSelect, onCancel, ignoreKeys });
  latest.current = { options, onSelect, onCancel, ignoreKeys };
  const guard = useContext(TypingGuardContext);
  const active = useRef(isActive);
  active.current = isActive;
  const onKey = (input: string, key: Key) => {
    if (!active.current || latest.current.ignoreKeys?.() || heldForDraft(guard, input, key)) return;
    const { options, onSelect, onCancel } = latest.current;
    if (key.escape) {
      onCancel?.();
      return;
    }
    const i = current.current;
    if (key.rightArrow) expand(i);
    else if (key.leftArrow) setExpanded(undefined);
    else if (key.upArrow || (key.tab && key.shift)) setIndex((i - 1 + options.length) % options.length);
    else if (key.downArrow || key.tab) setIndex((i + 1) % options.length);
    else if (key.return) onSelect(i);
    else if (/^[1-9]$/.test(input) && Number(input) <= options.length) onSelect(Number(input) - 1);
    else {
      const hit = options.findIndex((o) => o.hotkey !== undefined && o.hotkey === input.toLowerCase());
      if (hit >= 0) onSelect(hit);
    }
  };
  useKeys(onKey, { isActive });
  // Keys pressed as the list appears (typed ahead) are not lost to Ink's late subscription.
  useKeyHandoff(onKey, isActive);
  // A list taller than the terminal would push the dialog's title off the screen: fewer options
  // show on a short one.
  const { stdout } = useStdout();
  const WINDOW = Math.max(3, Math.min(MAX_WINDOW, (stdout.rows ?? 40) - DIALOG_ROWS));
  const start = Math.max(0, Math.min(index - Math.floor(WINDOW / 2), options.length - WINDOW));
  const visible = options.slice(start, start + WINDOW);
  const previews = options.some((o) => o.preview !== undefined);
  return (
    <Box flexDirection="column">
      {start > 0 ? <Text dimColor> ↑ {start} more</Text> : null}
      {visible.map((option, i) => {
        const at = start + i;
        const selected = at === index;
        return (
          <Box key={`${at}:${option.label}`} flexDirection="column">
            <Box>
              {/* A short label keeps its width (a long detail wraps beside it); a long one wraps too. */}
              <Box flexShrink={option.label.length * 2 <= (stdout.columns ?? 80) ? 0 : 1}>
                <Text color={selected ? "cyan" : undefined}>{selected ? "❯ " : "  "}</Text>
                <Text color={selected ? "cyan" : option.color} bold={selected}>
                  {at < 9 ? `${at + 1}. ` : "   "}
                  {option.label}
                </Text>
                {option.hotkey ? <Text dimColor> ({option.hotkey})</Text> : null}
              </Box>
              {option.detail ? <Text dimColor> {option.detail}</Text> : null}
            </Box>
            {expanded?.at === at ? <PreviewLines preview={expanded.preview} /> : null}
          </Box>
        );
      })}
      {start + WINDOW < options.length ? (
        <Text dimColor> ↓ {options.length - start - WINDOW} more</Text>
      ) : null}
      {previews ? <Text dimColor> → preview · ← fold · enter pick · esc cancel</Text> : null}
    </Box>
  );
}

/** An expanded option's preview, indented under it. */
function PreviewLines({ preview }: { readonly preview: Preview }): ReactNode {
  if (preview.state === "loading") return <Text dimColor>{"     …"}</Text>;
  if (preview.state === "failed")
    return <Text color="yellow">{`     Could not read the preview: ${preview.message}`}</Text>;
  const lines = preview.lines.slice(0, PREVIEW_LINES);
  const more = preview.lines.length - lines.length;
  return (
    <Box flexDirection="column" paddingLeft={5}>
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one preview never reorder
        <Text key={i}>{line}</Text>
      ))}
      {more > 0 ? <Text dimColor>… +{more} lines</Text> : null}
    </Box>
  );
}
