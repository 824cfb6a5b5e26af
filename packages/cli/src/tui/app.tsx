import { spawnSync } from "node:child_process";
import { basename } from "node:path";
import { getModelInfo, listModels } from "@attractor/llm";
import {
  addCosts,
  type CostSummary,
  historyCost,
  type Runtime,
  type UserMessageInput,
  updateItem,
} from "@attractor/runtime";
import { Box, Static, Text, useApp, useStdin, useStdout } from "ink";
import {
  type ReactNode,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import {
  type Choice,
  type CommandHost,
  commandTable,
  completeCommand,
  matchingCommands,
  nextMode,
  parseInput,
  runCommand,
  withMcpPrompts,
} from "../commands/index.js";
import { visibleControlsDeep } from "../terminal/visible-controls.js";
import { DISMISSED_ANSWER, type InteractiveUi } from "./bridge.js";
import { AskUserPrompt } from "./components/ask-user-prompt.js";
import { InputBox, type SentDraft } from "./components/input-box.js";
import { OutputViewer } from "./components/output-viewer.js";
import { PermissionPrompt } from "./components/permission-prompt.js";
import { RetryCountdown } from "./components/retry-countdown.js";
import { SandboxPrompt } from "./components/sandbox-prompt.js";
import { SelectList, type SelectOption } from "./components/select-list.js";
import { AnimationContext, Elapsed, Spinner } from "./components/spinner.js";
import { StatusLine } from "./components/status-line.js";
import { StreamingMessage } from "./components/streaming-message.js";
import { TodoPanel } from "./components/todo-panel.js";
import { ToolCallBlock } from "./components/tool-call-block.js";
import { TranscriptItemView } from "./components/transcript-item.js";
import type { InputHistory } from "./input/history.js";
import type { ImageAttachment } from "./input/images.js";
import { KeyHandoffContext, takeEarlyKey, useKeyHandoffSlot } from "./input/key-handoff.js";
import { useKeys } from "./input/keys.js";
import { expandMentions, findMentions } from "./input/mentions.js";
import { directoriesOf, fuzzyMatch, listProjectFiles } from "./input/project-files.js";
import { heldForDraft, holdIfTyping, TypingGuardContext, useTypingGuard } from "./input/typing-guard.js";
import { loadHighlighter } from "./markdown/highlight.js";
import { useTerminalWidthChange } from "./render/terminal-resize.js";
import { createDeltaBatcher } from "./transcript/delta-batcher.js";
import { withAdvice } from "./transcript/error-advice.js";
import type { NewItem } from "./transcript/items.js";
import { initialTranscript, reduceTranscript } from "./transcript/model.js";
import { REPLAY_ITEMS, replayHistory } from "./transcript/replay.js";

/** A second Ctrl+C within this window exits. */
const EXIT_WINDOW_MS = 2000;
const EXIT_HINT = "Press Ctrl+C again to exit";
const EOF_HINT = "Press Ctrl+D again to exit";
/** A second Esc within this window (idle, empty prompt) opens /rewind. */
const DOUBLE_ESC_MS = 800;
/** Erases the screen and the scrollback, then homes the cursor. */
const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";

/** An `@path` being typed at the end of the input: the part after the @. */
const MENTION_AT_END = /(?:^|\s)@([^\s@]*)$/;

/**
 * The message with the mentioned files' content put first and mentioned images added to the
 * images given; problems are reported, not fatal.
 */
async function withMentions(
  text: string,
  images: readonly ImageAttachment[],
  projectDir: string,
  report: (problem: string) => void,
): Promise<UserMessageInput> {
  const expanded =
    findMentions(text).length === 0
      ? undefined
      : await expandMentions(text, projectDir, { imagesBefore: images.length });
  for (const problem of expanded?.problems ?? []) report(`Not attached: ${problem}`);
  const all = [...images, ...(expanded?.images ?? [])];
  const full = expanded?.text ?? text;
  if (all.length === 0) return full;
  return { text: full, images: all.map((i) => ({ data: i.data, mediaType: i.mediaType })) };
}

/** A picker or yes/no question a slash command is waiting on. */
interface Dialog {
  /** Tells consecutive dialogs apart (each starts with its first option highlighted). */
  readonly id: number;
  readonly title: string;
  readonly options: readonly SelectOption[];
  /** The option highlighted first. */
  readonly initialIndex?: number;
  readonly pick: (index: number | undefined) => void;
}

/** What the App renders against: the runtime, its UI bridge, and the way out. */
export interface AppProps {
  readonly runtime: Runtime;
  readonly ui: InteractiveUi;
  readonly initialMessage?: string;
  readonly history?: InputHistory;
  /** Called once when the user leaves (/exit, Ctrl+C twice); the runtime is already closed. */
  readonly onExit: (code: number) => void;
  /** Ctrl+Z: hands the terminal back to the shell and stops the process until it is continued. */
  readonly onSuspend?: () => void;
  /** The terminal's modes (paste markers, enhanced keys), given to a program the UI runs and taken back. */
  readonly terminal?: { readonly release: () => void; readonly retake: () => void };
}

/**
 * The interactive UI: finished transcript items through <Static> (printed once), the live part
 * (streaming answer, running tools, prompts) below, then the input and the status line.
 */
export function App({
  runtime,
  ui,
  initialMessage,
  history,
  onExit,
  onSuspend,
  terminal,
}: AppProps): ReactNode {
  const { exit } = useApp();
  const { write, stdout } = useStdout();
  const { setRawMode, isRawModeSupported } = useStdin();
  const commands = useMemo(() => commandTable(runtime.customCommands), [runtime]);
  const [state, dispatch] = useReducer(reduceTranscript, undefined, () => startState(runtime));
  const [epoch, setEpoch] = useState(0);
  const [dialog, setDialog] = useState<Dialog | undefined>(undefined);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const [inputText, setInputText] = useState("");
  const [commandRunning, setCommandRunning] = useState<string | undefined>(undefined);
  /** The project's files and directories for @ completion; listed when an @ is first typed. */
  const [mentionPaths, setMentionPaths] = useState<readonly string[] | undefined>(undefined);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const prompt = useSyncExternalStore(ui.subscribe, ui.current);
  const lastCtrlC = useRef(0);
  const lastEsc = useRef(0);
  /** Ctrl+R search is open in the input box: Esc closes it and nothing else. */
  const searching = useRef(false);
  const hintTimer = useRef<NodeJS.Timeout | undefined>(undefined);
  useEffect(() => () => clearTimeout(hintTimer.current), []);
  const exiting = useRef(false);
  const busyRef = useRef(false);
  // Submissions whose promise has not settled: the last one settling means the agent is idle.
  const inflight = useRef(0);
  busyRef.current = state.busy;

  // Model and tool text is shown with its control sequences made visible: nothing it holds may
  // clear the screen, move the cursor or write the clipboard.
  // Streamed pieces are merged and drawn a few times a second, not once per piece.
  useEffect(() => {
    const batcher = createDeltaBatcher((events) => dispatch({ type: "events", events }));
    // A failed model call gets advice on what to do, which needs the provider and its models.
    const where = () => ({
      provider: runtime.provider,
      model: runtime.model,
      models: listModels(runtime.provider).map((m) => m.id),
    });
    const unsubscribe = runtime.subscribe((update) =>
      batcher.push(withAdvice(visibleControlsDeep(updateItem(update)), where)),
    );
    return () => {
      unsubscribe();
      batcher.dispose();
    };
  }, [runtime]);
  // A new width re-wraps what the terminal shows: the transcript is printed again, once, at the new
  // width (the scrollback too, or it would hold the old copy beside the new one).
  useTerminalWidthChange(() => {
    write(CLEAR_SCREEN);
    setEpoch((e) => e + 1);
  });
  // A resumed conversation's tokens and cost count in the status line from the start (computed
  // when a session is opened: the id changes on /resume and /clear, not as turns are added).
  const sessionId = runtime.session.id;
  // biome-ignore lint/correctness/useExhaustiveDependencies: recomputed per session on purpose
  const restoredCost = useMemo(
    () => historyCost(runtime.session.history, runtime.model),
    [runtime, sessionId],
  );
  // The process's spending when this session was opened: after /clear the status line counts the
  // new conversation only (the session's totals stay in /cost).
  // biome-ignore lint/correctness/useExhaustiveDependencies: taken per session on purpose
  const spentBefore = useMemo(() => runtime.cost(), [runtime, sessionId]);
  // After the first frame: code blocks get colours once the grammars are in.
  useEffect(() => void loadHighlighter(), []);
  // When the agent became busy, for the elapsed time shown beside the spinner.
  const busySince = useRef(0);
  const wasBusy = useRef(false);
  if (state.busy && !wasBusy.current) busySince.current = Date.now();
  wasBusy.current = state.busy;

  const leave = useCallback(
    async (code: number) => {
      if (exiting.current) return;
      exiting.current = true;
      ui.cancelAll();
      try {
        await runtime.close();
      } catch {
        // Closing flushes the transcript; a failure there must not keep the terminal hostage.
      }
      onExit(code);
      exit();
    },
    [runtime, ui, onExit, exit],
  );

  const dialogs = useRef(0);
  const sendMessage = useRef<(text: string, draft?: SentDraft) => void>(() => {});
  const host = useMemo<CommandHost>(() => {
    /** Shows a dialog whose first answer settles it; later answers to it are ignored. */
    const ask = (
      title: string,
      options: readonly SelectOption[],
      settle: (i: number | undefined) => void,
      initialIndex = 0,
    ) => {
      const id = ++dialogs.current;
      let answered = false;
      setDialog({
        id,
        title,
        options,
        initialIndex,
        pick: (i) => {
          if (answered) return;
          answered = true;
          setDialog((shown) => (shown?.id === id ? undefined : shown));
          settle(i);
        },
      });
    };
    return {
      show: (block) => dispatch({ type: "output", block }),
      choose: <T,>(
        title: string,
        choices: readonly Choice<T>[],
        options?: { readonly initialIndex?: number },
      ) =>
        new Promise<T | undefined>((resolve) => {
          ask(
            title,
            choices.map((c) => ({
              label: c.label,
              ...(c.detail !== undefined && { detail: c.detail }),
              ...(c.preview !== undefined && { preview: c.preview }),
            })),
            (i) => resolve(i === undefined ? undefined : choices[i]?.value),
            options?.initialIndex,
          );
        }),
      confirm: (question) =>
        new Promise<boolean>((resolve) => {
          ask(
            question,
            [
              { label: "Yes", hotkey: "y", color: "green" },
              { label: "No", hotkey: "n" },
            ],
            (i) => resolve(i === 0),
          );
        }),
      resetScreen: (replay, options) => {
        write(CLEAR_SCREEN);
        dispatch({ type: "reset" });
        setEpoch((e) => e + 1);
        for (const item of startItems(runtime, replay, options?.whole)) dispatch({ type: "append", item });
      },
      exit: () => void leave(0),
      // Straight to the terminal, not through Ink: the bytes move no cursor and draw nothing.
      writeToTerminal: (bytes) => void stdout.write(bytes),
      send: (text) => sendMessage.current(text),
      editFile: async (path) => {
        // The editor owns the terminal until it exits; then the transcript is drawn again.
        const editor = process.env.VISUAL || process.env.EDITOR || "vi";
        // As the shell would start it: no paste markers, no enhanced key encodings it never asked for.
        if (isRawModeSupported) setRawMode(false);
        terminal?.release();
        try {
          spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "editor", path], { stdio: "inherit" });
        } finally {
          terminal?.retake();
          if (isRawModeSupported) setRawMode(true);
          write(CLEAR_SCREEN);
          dispatch({ type: "reset" });
          setEpoch((e) => e + 1);
          for (const item of startItems(runtime, true)) dispatch({ type: "append", item });
        }
      },
    };
  }, [runtime, write, stdout, leave, setRawMode, isRawModeSupported, terminal]);

  const runSlash = useCallback(
    async (name: string, args: string) => {
      setCommandRunning(name);
      try {
        await runCommand(name, args, { runtime, host, busy: busyRef.current }, commands);
      } finally {
        setCommandRunning(undefined);
      }
    },
    [runtime, host, commands],
  );

  /** `!command`: runs in the project's shell through the permission policy; its output becomes context. */
  const runBang = useCallback(
    async (command: string) => {
      dispatch({ type: "append", item: { kind: "user", text: `!${command}` } });
      setCommandRunning(`!${command}`);
      try {
        const result = await runtime.runUserCommand(command);
        if (result.kind === "denied") {
          dispatch({ type: "notice", tone: "warning", text: `Not run: ${result.message}` });
          return;
        }
        const status = result.timedOut ? "timed out" : `exit ${result.exitCode ?? "signal"}`;
        const failed = result.timedOut || result.exitCode !== 0;
        dispatch({
          type: "output",
          block: {
            kind: "text",
            tone: failed ? "error" : "success",
            text: `${result.output.trimEnd() || "(no output)"}\n(${status} · added to the conversation as context)`,
          },
        });
      } catch (error) {
        dispatch({
          type: "notice",
          tone: "error",
          text: `Could not run: ${error instanceof Error ? error.message : String(error)}`,
        });
      } finally {
        setCommandRunning(undefined);
      }
    },
    [runtime],
  );

  /** Sends a message: as a new turn when idle, queued as a follow-up when busy. */
  const send = useCallback(
    (text: string, draft?: SentDraft) => {
      setHint(undefined);
      const parsed = parseInput(text);
      if (parsed.kind === "command") {
        void runSlash(parsed.name, parsed.args);
        return;
      }
      const bang = /^\s*!(.+)$/s.exec(parsed.text);
      if (bang && !busyRef.current) {
        void runBang((bang[1] as string).trim());
        return;
      }
      sendMessage.current(parsed.text, draft);
    },
    [runSlash, runBang],
  );

  /** Sends text (and the draft's images) to the model as the user's message (a slash command's text included). */
  sendMessage.current = (text: string, draft?: SentDraft) => {
    dispatch({
      type: "submitted",
      text,
      whileBusy: busyRef.current,
      ...(draft?.shown !== undefined && { shown: draft.shown }),
    });
    busyRef.current = true;
    inflight.current++;
    // Project files change; the next @ lists them afresh.
    setMentionPaths(undefined);
    withMentions(text, draft?.images ?? [], runtime.projectDir, (problem) =>
      dispatch({ type: "notice", tone: "warning", text: problem }),
    )
      .then((full) => runtime.submit(full))
      .then(
        () => {
          if (--inflight.current === 0) dispatch({ type: "settled" });
        },
        (error: unknown) => {
          inflight.current--;
          dispatch({
            type: "failed",
            message: `Could not send: ${error instanceof Error ? error.message : String(error)}`,
          });
        },
      );
  };

  /**
   * Enter: while the agent works, a message steers it (one with images is queued instead:
   * steering carries text only); otherwise it is sent.
   */
  const submit = useCallback(
    (text: string, draft?: SentDraft) => {
      const parsed = parseInput(text);
      if (parsed.kind === "command" || !busyRef.current || (draft?.images.length ?? 0) > 0) {
        send(text, draft);
        return;
      }
      setHint(undefined);
      try {
        runtime.steer(parsed.text);
      } catch (error) {
        dispatch({
          type: "failed",
          message: `Could not send: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    },
    [runtime, send],
  );

  // The initial message is sent once, on mount.
  const sentInitial = useRef(false);
  useEffect(() => {
    if (sentInitial.current) return;
    sentInitial.current = true;
    if (initialMessage?.trim()) send(initialMessage);
  }, [initialMessage, send]);

  const interrupt = useCallback(() => {
    ui.cancelAll();
    void runtime.interrupt().catch(() => undefined);
  }, [runtime, ui]);

  /** Whether the whole output of the latest tool calls is shown in place of the input (ctrl+o). */
  const [viewingOutput, setViewingOutput] = useState(false);
  const inputActive = !prompt && !dialog && !viewingOutput;

  /**
   * Ctrl+C in the input box. The first press always does something that loses nothing for good:
   * it clears the draft, or interrupts the running turn; only a press over an empty, idle input
   * arms the exit, and a second such press within the window leaves.
   */
  const onCtrlC = (draft: string) => {
    if (draft !== "" || busyRef.current || commandRunning) {
      lastCtrlC.current = 0;
      if (draft === "" && busyRef.current) interrupt();
      return;
    }
    const now = Date.now();
    if (now - lastCtrlC.current < EXIT_WINDOW_MS) {
      void leave(0);
      return;
    }
    lastCtrlC.current = now;
    setHint(EXIT_HINT);
    clearTimeout(hintTimer.current);
    hintTimer.current = setTimeout(() => setHint((h) => (h === EXIT_HINT ? undefined : h)), EXIT_WINDOW_MS);
  };

  /** Ctrl+D over an empty input: the first press arms the exit with a hint, a second one leaves. */
  const lastCtrlD = useRef(0);
  const onCtrlD = () => {
    const now = Date.now();
    if (now - lastCtrlD.current < EXIT_WINDOW_MS) {
      void leave(0);
      return;
    }
    lastCtrlD.current = now;
    setHint(EOF_HINT);
    clearTimeout(hintTimer.current);
    hintTimer.current = setTimeout(() => setHint((h) => (h === EOF_HINT ? undefined : h)), EXIT_WINDOW_MS);
  };

  const handoff = useKeyHandoffSlot();
  const typing = useTypingGuard();
  // In the commit that shows a question, before any key can reach it.
  useLayoutEffect(() => {
    if (prompt !== undefined) holdIfTyping(typing);
  }, [prompt, typing]);
  useKeys((input, key) => {
    // Keys the user was typing into the draft as a question appeared go on into the draft.
    const draft = typing.current.draft;
    if (prompt && draft && heldForDraft(typing, input, key)) {
      draft(input, key);
      return;
    }
    // A list or the input that has just appeared takes the keys until it listens itself.
    if (takeEarlyKey(handoff, input, key)) return;
    if (key.ctrl && input === "c") {
      // With the input box on screen, it reports the press with its draft (onCtrlC).
      if (inputActive) return;
      lastCtrlC.current = 0;
      if (dialog) dialog.pick(undefined);
      else if (prompt || state.busy) interrupt();
      return;
    }
    if (key.ctrl && input === "z" && onSuspend) {
      onSuspend();
      return;
    }
    // ctrl+o opens the output viewer (it closes itself); a permission prompt uses the key itself.
    if (key.ctrl && input === "o" && !prompt && !dialog && !viewingOutput) {
      setViewingOutput(true);
      return;
    }
    if (key.tab && key.shift) {
      runtime.setMode(nextMode(runtime.mode));
      rerender();
      return;
    }
    // Prompts, dialogs, the output viewer and the history search handle Esc themselves.
    if (!key.escape || prompt || dialog || viewingOutput || searching.current) return;
    if (state.busy) {
      interrupt();
      return;
    }
    const now = Date.now();
    if (inputText === "" && now - lastEsc.current < DOUBLE_ESC_MS && !commandRunning) {
      lastEsc.current = 0;
      void runSlash("rewind", "");
      return;
    }
    lastEsc.current = now;
  });

  const suggestions = /^\/[\w:-]*$/.test(inputText)
    ? matchingCommands(inputText.slice(1), withMcpPrompts(commands, runtime)).slice(0, 6)
    : [];
  const mentionQuery = MENTION_AT_END.exec(inputText)?.[1];
  const wantsPaths = mentionQuery !== undefined && mentionPaths === undefined;
  useEffect(() => {
    if (!wantsPaths) return;
    let live = true;
    void listProjectFiles(runtime.projectDir).then((files) => {
      if (live) setMentionPaths([...files, ...directoriesOf(files)]);
    });
    return () => {
      live = false;
    };
  }, [wantsPaths, runtime.projectDir]);
  const mentionSuggestions =
    mentionQuery !== undefined && mentionPaths ? fuzzyMatch(mentionPaths, mentionQuery, 6) : [];
  /** Tab: a slash command's name, or the best file for the `@` being typed. */
  const complete = (text: string): string | undefined => {
    const command = completeCommand(text, withMcpPrompts(commands, runtime));
    if (command !== undefined) return command;
    const query = MENTION_AT_END.exec(text)?.[1];
    if (query === undefined || !mentionPaths) return undefined;
    const best = fuzzyMatch(mentionPaths, query, 1)[0];
    return best === undefined || best === query
      ? undefined
      : text.slice(0, text.length - query.length) + best;
  };
  // The list is shown while the agent works on it; the todo tool's blocks keep its history.
  const showTodos = state.busy && state.todos.some((t) => t.status !== "completed");

  const view = (
    <AnimationContext.Provider value={!prompt}>
      <Box flexDirection="column">
        {/* Static is positioned absolutely: without a width, Yoga lays its text out a column or two
          wider than the terminal, and every wrapped line of the transcript overflows. */}
        <Static key={epoch} items={state.items as (typeof state.items)[number][]} style={{ width: "100%" }}>
          {(item) => <TranscriptItemView key={item.id} item={item} />}
        </Static>
        {/* The output viewer takes the screen's height: what streams meanwhile shows again after. */}
        {(viewingOutput ? [] : state.running).map((call) => (
          <Box key={call.callId} marginTop={1}>
            <ToolCallBlock call={call} />
          </Box>
        ))}
        {state.subagents.map((agent) => (
          <Box key={agent.agentId} paddingLeft={2}>
            <Text dimColor>
              ↳ {agent.agentType ?? "subagent"} · {agent.activity} · {agent.toolCalls} tool call
              {agent.toolCalls === 1 ? "" : "s"}
            </Text>
          </Box>
        ))}
        {state.streaming && !viewingOutput ? (
          <StreamingMessage
            reasoning={state.streaming.reasoning}
            text={state.streaming.text}
            first={!state.streaming.committedAny}
          />
        ) : null}
        {state.retrying ? <RetryCountdown retry={state.retrying} /> : null}
        {state.busy || (commandRunning && !dialog) ? (
          <Box marginTop={1}>
            {/* A running tool's own spinner shows the agent is alive; one moving line is cheaper than two. */}
            {state.running.length > 0 ? <Text color="magenta">✻</Text> : <Spinner color="magenta" />}
            <Text>
              {" "}
              {state.activity ??
                (commandRunning
                  ? `Running ${commandRunning.startsWith("!") ? "" : "/"}${commandRunning}`
                  : "Working")}
              …{" "}
            </Text>
            {state.busy ? (
              <Text dimColor>
                (<Elapsed since={busySince.current} /> · esc to interrupt)
              </Text>
            ) : null}
          </Box>
        ) : null}
        {state.steering.map((text, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list only grows at the end and shrinks at the front
          <Text key={`s${i}`} dimColor>
            {"  "}steering: {text}
          </Text>
        ))}
        {state.queued.map((text, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the queue only grows at the end and shrinks at the front
          <Text key={`q${i}`} dimColor>
            {"  "}queued: {text}
          </Text>
        ))}
        {showTodos ? <TodoPanel todos={state.todos} /> : null}
        <Box marginTop={1} flexDirection="column">
          {prompt?.kind === "permission" ? (
            <PermissionPrompt
              key={prompt.id}
              request={prompt.request}
              projectDir={runtime.projectDir}
              queued={ui.pendingCount() - 1}
              onAnswer={(answer) => {
                ui.answerPermission(prompt.id, answer);
                if (answer === "abort") interrupt();
              }}
            />
          ) : prompt?.kind === "sandbox" ? (
            <SandboxPrompt
              key={prompt.id}
              request={prompt.request}
              onAnswer={(answer) => ui.answerSandbox(prompt.id, answer)}
            />
          ) : prompt?.kind === "question" ? (
            <AskUserPrompt
              key={prompt.id}
              question={prompt.question}
              onAnswer={(answer) => ui.answerQuestion(prompt.id, answer)}
              onDismiss={() => ui.answerQuestion(prompt.id, DISMISSED_ANSWER)}
            />
          ) : viewingOutput ? (
            <OutputViewer outputs={state.outputs} onClose={() => setViewingOutput(false)} />
          ) : dialog ? (
            <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
              <Text bold>{dialog.title}</Text>
              <SelectList
                question={dialog.id}
                options={dialog.options}
                {...(dialog.initialIndex !== undefined && { initialIndex: dialog.initialIndex })}
                onSelect={(i) => dialog.pick(i)}
                onCancel={() => dialog.pick(undefined)}
              />
              <Text dimColor>enter select · esc cancel</Text>
            </Box>
          ) : null}
          <Box
            display={inputActive ? "flex" : "none"}
            flexDirection="column"
            borderStyle="round"
            borderColor="gray"
            paddingX={1}
          >
            <InputBox
              onSubmit={submit}
              {...(state.busy && { onQueue: send })}
              onChange={setInputText}
              onCtrlC={onCtrlC}
              onCtrlD={onCtrlD}
              onNotice={(text) => dispatch({ type: "notice", tone: "warning", text })}
              onSearching={(active) => {
                searching.current = active;
              }}
              refuseImages={() =>
                getModelInfo(runtime.model)?.supportsVision === false
                  ? `${runtime.model} does not read images: remove the [Image #N] placeholder or switch models with /model`
                  : undefined
              }
              baseDir={runtime.projectDir}
              isDraft
              isActive={inputActive}
              complete={complete}
              fills={state.inputFills}
              placeholder={
                state.busy
                  ? "Enter steers the agent now · Tab queues a message for after this turn"
                  : "Ask anything, or / for commands"
              }
              {...(history !== undefined && { history })}
            />
          </Box>
          {inputActive && mentionSuggestions.length > 0 ? (
            <Box flexDirection="column" paddingLeft={2}>
              {mentionSuggestions.map((path, i) => (
                <Text key={path} wrap="truncate-middle" {...(i > 0 && { dimColor: true })}>
                  @{path}
                  {i === 0 ? <Text dimColor> · tab</Text> : null}
                </Text>
              ))}
            </Box>
          ) : null}
          {inputActive && suggestions.length > 0 ? (
            <Box flexDirection="column" paddingLeft={2}>
              {suggestions.map((c) => (
                <Text key={c.name}>
                  <Text color="cyan">/{c.name}</Text>
                  {c.args ? <Text dimColor> {c.args}</Text> : null}
                  <Text dimColor> · {c.summary}</Text>
                </Text>
              ))}
            </Box>
          ) : null}
          <StatusLine
            info={{
              model: runtime.model,
              mode: runtime.mode,
              cost: addCosts(restoredCost, costSince(runtime.cost(), spentBefore)),
              // The runtime's figure: none after /clear until a request measures it, the stored
              // one after /resume, the compacted history's estimate after a compaction.
              contextPercent: runtime.contextPercent(),
              jobs: runtime.session.processes.runningCount(),
              ...(hint !== undefined && { hint }),
            }}
          />
        </Box>
      </Box>
    </AnimationContext.Provider>
  );
  return (
    <KeyHandoffContext.Provider value={handoff}>
      <TypingGuardContext.Provider value={typing}>{view}</TypingGuardContext.Provider>
    </KeyHandoffContext.Provider>
  );
}

function startState(runtime: Runtime) {
  return startItems(runtime, true).reduce(
    (s, item) => reduceTranscript(s, { type: "append", item }),
    initialTranscript(visibleControlsDeep(runtime.todos)),
  );
}

/** The banner, then (when resuming) the stored conversation: its latest items, or the `whole` of it. */
function startItems(runtime: Runtime, replay: boolean, whole = false): NewItem[] {
  const banner: NewItem = {
    kind: "banner",
    title: "attractor",
    detail: `${runtime.model} (${runtime.provider}) · ${basename(runtime.projectDir) || runtime.projectDir} · /help for commands`,
  };
  const history = () =>
    replayHistory(runtime.session.history, whole ? Number.POSITIVE_INFINITY : REPLAY_ITEMS);
  return [banner, ...(replay ? visibleControlsDeep(history()) : [])];
}

/** What was spent between `before` and `now` (the cost unknown when it is unknown now). */
function costSince(now: CostSummary, before: CostSummary): CostSummary {
  return {
    inputTokens: now.inputTokens - before.inputTokens,
    outputTokens: now.outputTokens - before.outputTokens,
    reasoningTokens: now.reasoningTokens - before.reasoningTokens,
    cacheReadTokens: now.cacheReadTokens - before.cacheReadTokens,
    cacheWriteTokens: now.cacheWriteTokens - before.cacheWriteTokens,
    totalTokens: now.totalTokens - before.totalTokens,
    // Nothing priced before (no spending yet) counts as nothing spent.
    costUsd: now.costUsd === undefined ? undefined : now.costUsd - (before.costUsd ?? 0),
  };
}
