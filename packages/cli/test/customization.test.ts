import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CommandExpansionError, splitArguments } from "@attractor/runtime/customization";
import { describe, expect, it } from "vitest";
import { commandTable, completeCommand, INIT_PROMPT, parseInput, runCommand } from "../src/commands/index.js";
import type { CommandHost, OutputBlock } from "../src/commands/types.js";
import { startRoutedModel } from "../src/testing/index.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

const fx = runtimeFixture();

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** A command host that records what commands print. */
function recordingHost(): CommandHost & { shown: OutputBlock[] } {
  const shown: OutputBlock[] = [];
  return {
    shown,
    show: (block) => void shown.push(block),
    choose: async () => undefined,
    confirm: async () => false,
    resetScreen: () => {},
    exit: () => {},
  };
}

describe("custom slash commands", () => {
  it("loads .claude/commands, .attractor/commands and the user's folder; namespaced; in /help and completion", async () => {
    const home = join(fx.root, "attractor");
    await put(
      join(fx.project, ".claude", "commands", "frontend", "component.md"),
      "---\ndescription: Make a component\nargument-hint: <name>\n---\nCreate the $1 component.\n",
    );
    await put(join(fx.project, ".claude", "commands", "review.md"), "Review the code (claude's copy).\n");
    await put(
      join(fx.project, ".attractor", "commands", "review.md"),
      "---\ndescription: Review the diff\n---\nReview the diff carefully.\n",
    );
    await put(join(home, "commands", "standup.md"), "Summarise yesterday's commits.\n");
    await put(join(fx.project, ".claude", "commands", "broken.md"), "---\ndescription: [unclosed\n---\nx\n");
    const { runtime, events } = await fx.start();
    const names = runtime.customCommands?.map((c) => [c.name, c.description]);
    expect(names).toEqual([
      ["standup", "Summarise yesterday's commits."],
      ["frontend:component", "Make a component"],
      // The project's .attractor folder wins over .claude for the same name.
      ["review", "Review the diff"],
    ]);
    expect(events).toContainEqual({
      kind: "warning",
      message: expect.stringMatching(/broken\.md: invalid frontmatter.*\(skipped\)/s),
    });

    const table = commandTable(runtime.customCommands);
    expect(completeCommand("/front", table)).toBe("/frontend:component ");
    expect(parseInput("/frontend:component Button")).toEqual({
      kind: "command",
      name: "frontend:component",
      args: "Button",
    });
    const host = recordingHost();
    await runCommand("help", "", { runtime, host, busy: false }, table);
    const help = host.shown[0];
    expect(help?.kind === "list" && help.rows).toContainEqual({
      label: "/frontend:component <name>",
      detail: "Make a component (project)",
    });
    expect(help?.kind === "list" && help.rows).toContainEqual({
      label: "/standup",
      detail: "Summarise yesterday's commits. (user)",
    });
  });

  it("expands $ARGUMENTS, $1…, @file and !`command` (allowed-tools let it run) and sends the result", async () => {
    await put(
      join(fx.project, ".attractor", "commands", "fix.md"),
      [
        "---",
        "description: Fix a file",
        "allowed-tools: Bash(git status:*), Bash(touch:*)",
        "---",
        "Fix $1 (priority $2). All: $ARGUMENTS",
        "Status: !`echo branch-is-clean`",
        "Marker: !`touch made.txt`",
        "The file: @src/math.js and a handle @someone",
        "",
      ].join("\n"),
    );
    fx.model.script([{ text: "Fixed." }]);
    const { runtime } = await fx.start({ headless: true });
    await runtime.runCustomCommand?.("fix", 'src/math.js "very high"');
    const [request] = fx.model.seen();
    const sent = request?.userTexts[0] ?? "";
    expect(sent).toContain('Fix src/math.js (priority very high). All: src/math.js "very high"');
    expect(sent).toContain("Status: branch-is-clean");
    expect(sent).toContain("Contents of src/math.js:\n```\nfunction add(a, b) {");
    expect(sent).toContain("@someone");
    // touch is not read-only: only the command's allowed-tools let it run headless.
    expect(existsSync(join(fx.project, "made.txt"))).toBe(true);
    expect(sent).not.toContain("Contents of someone");
  });

  it("a !`command` the permission policy refuses sends nothing and says why", async () => {
    await put(join(fx.project, ".attractor", "commands", "wipe.md"), "Context: !`touch wiped.txt`\nGo.\n");
    const { runtime } = await fx.start({ headless: true });
    const failure = await runtime.runCustomCommand?.("wipe", "").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CommandExpansionError);
    expect(String((failure as Error).message)).toMatch(/touch wiped.txt.*did not run/s);
    expect(existsSync(join(fx.project, "wiped.txt"))).toBe(false);
    expect(fx.model.seen()).toHaveLength(0);
  });

  it("splits arguments like a shell", () => {
    expect(splitArguments(`one "two words" 'three x' four\\ `)).toEqual([
      "one",
      "two words",
      "three x",
      "four\\",
    ]);
  });
});

describe("hooks through the runtime", () => {
  it("a Stop hook from user settings sends the model back with its reason; SessionStart adds context", async () => {
    const home = join(fx.root, "attractor");
    const stop = join(fx.root, "stop.sh");
    await writeFile(
      stop,
      `#!/bin/sh\nif grep -q '"stop_hook_active":false' ; then echo 'run node test.js before you stop' >&2; exit 2; fi\nexit 0\n`,
    );
    await chmod(stop, 0o755);
    await put(
      join(home, "settings.json"),
      JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: "command", command: stop }] }],
          SessionStart: [
            {
              matcher: "startup",
              hooks: [
                {
                  type: "command",
                  // A shell expansion, not a template placeholder.
                  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax
                  command: 'echo "deploys freeze on Friday; key: ${ANTHROPIC_API_KEY:-hidden}"',
                },
              ],
            },
          ],
        },
      }),
    );
    fx.model.script([{ text: "Done." }, { text: "Ran the tests, done." }]);
    const { runtime } = await fx.start();
    await runtime.submit("fix it");
    const seen = fx.model.seen();
    expect(seen).toHaveLength(2);
    // Hooks do not see secrets unless env.allow names them.
    expect(seen[0]?.userTexts).toEqual(["fix it", "deploys freeze on Friday; key: hidden"]);
    expect(seen[1]?.userTexts.at(-1)).toBe("run node test.js before you stop");
  });

  it("SessionEnd and SessionStart hooks hear /clear as clear, and leaving as prompt_input_exit", async () => {
    const home = join(fx.root, "attractor");
    const log = join(fx.root, "lifecycle.log");
    const record = (event: string) => ({
      hooks: [
        {
          type: "command",
          command: `sed -n 's/.*"${event === "SessionEnd" ? "reason" : "source"}":"\\([a-z_]*\\)".*/${event} \\1/p' >> '${log}'; echo >> '${log}'`,
        },
      ],
    });
    await put(
      join(home, "settings.json"),
      JSON.stringify({
        hooks: { SessionStart: [record("SessionStart")], SessionEnd: [record("SessionEnd")] },
      }),
    );
    fx.model.script([{ text: "one" }, { text: "two" }]);
    const { runtime } = await fx.start();
    await runtime.submit("first");
    await runtime.clear();
    await runtime.submit("second");
    await runtime.close();
    expect((await readFile(log, "utf8")).split("\n").filter((l) => l !== "")).toEqual([
      "SessionStart startup",
      "SessionEnd clear",
      "SessionStart clear",
      "SessionEnd prompt_input_exit",
    ]);
  });

  it("project hooks need --trust-project: ignored with a warning, run once trusted", async () => {
    await put(
      join(fx.project, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'from the project hook'" }] }],
        },
      }),
    );
    fx.model.script([{ text: "a" }, { text: "b" }]);
    const untrusted = await fx.start();
    expect(untrusted.events).toContainEqual({
      kind: "warning",
      message: expect.stringContaining("--trust-project"),
    });
    await untrusted.runtime.submit("hello");
    expect(fx.model.seen()[0]?.userTexts).toEqual(["hello"]);
    await untrusted.runtime.close();
    const trusted = await fx.start({ trustProject: true });
    await trusted.runtime.submit("hello again");
    expect(fx.model.seen()[1]?.userTexts).toEqual(["hello again", "from the project hook"]);
  });
});

describe("custom subagents through the runtime", () => {
  it("a .claude/agents type is offered, spawned with its prompt, tools and model, and its events are forwarded", async () => {
    await put(
      join(fx.project, ".claude", "agents", "tester.md"),
      "---\nname: test-runner\ndescription: Runs the test suite and reports failures.\ntools: Bash, Read\nmodel: claude-haiku-4-5\n---\nYou only run tests and report.\n",
    );
    const model = await startRoutedModel("anthropic", (r) => {
      const system = JSON.stringify(r.body.system ?? "");
      if (system.includes("You only run tests and report.")) {
        return r.toolResults.length === 0
          ? { calls: [{ name: "shell", args: { command: "node test.js" } }] }
          : { text: `tests: ${r.toolResults[0]?.includes("FAIL") ? "failing" : "passing"}` };
      }
      if (r.toolResults.length === 0)
        return {
          calls: [{ name: "spawn_agent", args: { task: "run the tests", subagent_type: "test-runner" } }],
        };
      if (r.toolResults.length === 1) {
        const { agent_id } = JSON.parse(r.toolResults[0] as string) as { agent_id: string };
        return { calls: [{ name: "wait", args: { agent_id } }] };
      }
      return { text: "The subagent says the tests are failing." };
    });
    try {
      await put(
        join(fx.project, ".attractor", "settings.json"),
        JSON.stringify({ permissions: { allow: ["shell(node test.js)"] } }),
      );
      // The project's allow rule applies once the project is trusted.
      const { runtime, events } = await fx.start({
        trustProject: true,
        env: { PATH: process.env.PATH ?? "", HOME: join(fx.root, "user"), ...model.env() },
      });
      await runtime.submit("check the tests with a subagent");
      const seen = model.seen();
      const parentFirst = seen[0];
      expect(JSON.stringify(parentFirst?.body.tools)).toContain(
        "test-runner: Runs the test suite and reports failures.",
      );
      const child = seen.filter((r) =>
        JSON.stringify(r.body.system ?? "").includes("You only run tests and report."),
      );
      expect(child).toHaveLength(2);
      expect(child[0]?.model).toBe("claude-haiku-4-5");
      expect(child[0]?.tools).toEqual(["read_file", "shell"]);
      expect(seen.at(-1)?.toolResults.at(-1)).toContain("tests: failing");
      // Every response counts in the cost, the subagent's included.
      expect(runtime.cost().inputTokens).toBe(120 * seen.length);
      const forwarded = events.filter((e) => "kind" in e && e.kind === "subagent_event");
      expect(forwarded.length).toBeGreaterThan(3);
      expect(forwarded[0]).toMatchObject({
        data: { agentType: "test-runner", event: { kind: "session_start" } },
      });
    } finally {
      await model.close();
    }
  });
});

describe("skills and instruction files through the runtime", () => {
  it("skills from .claude/skills are named in the prompt and loaded by the skill tool; CLAUDE.md and the user's AGENTS.md are read", async () => {
    const home = join(fx.root, "attractor");
    await put(
      join(fx.project, ".claude", "skills", "release", "SKILL.md"),
      "---\nname: release\ndescription: Cut a release of this package.\n---\nBump the version, tag, push.\n",
    );
    await put(join(fx.project, ".claude", "skills", "release", "scripts", "cut.sh"), "git tag v$1\n");
    await put(join(fx.project, "CLAUDE.md"), "Use tabs in this project.");
    await put(join(home, "AGENTS.md"), "I prefer short answers.");
    fx.model.script([
      { calls: [{ name: "skill", args: { name: "release" } }] },
      { calls: [{ name: "skill", args: { name: "release", file: "scripts/cut.sh" } }] },
      { text: "ok" },
    ]);
    const { runtime } = await fx.start({ provider: "anthropic" });
    await runtime.submit("release it");
    const [first, second, third] = fx.model.seen();
    const system = JSON.stringify(first?.body.system);
    expect(system).toContain("- release: Cut a release of this package.");
    expect(system).not.toContain("Bump the version");
    expect(system).toContain("Use tabs in this project.");
    expect(system).toContain("I prefer short answers.");
    expect(second?.toolResults[0]).toContain("Bump the version, tag, push.");
    expect(second?.toolResults[0]).toContain("- scripts/cut.sh");
    expect(third?.toolResults[1]).toBe("git tag v$1\n");
    expect(await runtime.instructionFiles?.()).toEqual([
      join(home, "AGENTS.md"),
      join(fx.project, "CLAUDE.md"),
    ]);
  });
});

describe("/init and /memory", () => {
  it("/init asks the model to write AGENTS.md, and the model's write lands in the project", async () => {
    fx.model.script([
      {
        calls: [
          { name: "write_file", args: { file_path: "AGENTS.md", content: "# Agents\nRun node test.js.\n" } },
        ],
      },
      { text: "Wrote AGENTS.md." },
    ]);
    const { runtime } = await fx.start({ mode: "auto-edit" });
    await runCommand("init", "", { runtime, host: recordingHost(), busy: false }, commandTable());
    expect(fx.model.seen()[0]?.userTexts[0]).toBe(INIT_PROMPT);
    expect(await fx.read("AGENTS.md")).toBe("# Agents\nRun node test.js.\n");
  });

  it("/memory lists the instruction files and opens the chosen one in the editor, creating the user's", async () => {
    await put(join(fx.project, "AGENTS.md"), "project rules");
    const { runtime } = await fx.start();
    const opened: string[] = [];
    const host = {
      ...recordingHost(),
      choose: async <T>(_title: string, choices: readonly { value: T }[]) => choices[0]?.value,
      editFile: async (path: string) => void opened.push(path),
    };
    await runCommand("memory", "", { runtime, host, busy: false }, commandTable());
    const userFile = join(fx.root, "attractor", "AGENTS.md");
    expect(opened).toEqual([userFile]);
    expect(existsSync(userFile)).toBe(true);
    expect(await runtime.instructionFiles?.()).toEqual([userFile, join(fx.project, "AGENTS.md")]);
  });
});
