import { afterEach, beforeAll, beforeEach } from "vitest";
import {
  buggyProject,
  type CliResult,
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
} from "../../src/testing/index.js";

/** What a headless test works with; `root` and `project` are fresh for each test. */
export interface HeadlessFixture {
  /** The test's temporary folder: the project, the user's home and attractor's home inside. */
  readonly root: string;
  /** A small project whose add() subtracts, with a test that catches it. */
  readonly project: string;
  /** The scripted model the test started, if any; closed after the test. */
  model: ScriptedModel | undefined;
  /** Runs the built command in the project, in a clean environment plus the model's variables. */
  run(args: readonly string[], extraEnv?: Record<string, string>, input?: string): Promise<CliResult>;
}

/**
 * The set-up the headless test files share, registered as the calling file's hooks: the built
 * command is checked once, each test gets a fresh buggy project, and its model and project are
 * removed after it.
 */
export function headlessFixture(): HeadlessFixture {
  let current: { root: string; project: string; remove: () => Promise<void> } | undefined;
  const here = () => {
    if (!current) throw new Error("the headless fixture is used outside a test");
    return current;
  };
  const fixture: HeadlessFixture = {
    get root() {
      return here().root;
    },
    get project() {
      return here().project;
    },
    model: undefined,
    run: (args, extraEnv = {}, input) =>
      runCliProcess(args, {
        cwd: here().project,
        env: cleanEnv(here().root, { ...fixture.model?.env(), ...extraEnv }),
        ...(input !== undefined && { input }),
      }),
  };
  beforeAll(() => {
    requireBuiltCli();
  });
  beforeEach(async () => {
    current = await buggyProject();
  });
  afterEach(async () => {
    await fixture.model?.close();
    fixture.model = undefined;
    await current?.remove();
    current = undefined;
  });
  return fixture;
}
