import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionEvent } from "@attractor/agent";
import {
  createRuntime,
  type Runtime,
  type RuntimeNotice,
  type RuntimeUi,
  updateItem,
} from "@attractor/runtime";
import { createSessionStore, turnsOf } from "@attractor/runtime/store";
import { afterEach, beforeEach } from "vitest";
import {
  buggyProject,
  pathWithoutPackageBins,
  type ScriptedModel,
  startScriptedModel,
} from "../../src/testing/index.js";

/** A UI that denies every prompt and has no answer to questions. */
const NO_ONE: RuntimeUi = {
  askPermission: async () => "deny",
  askUser: async () => "no idea",
};

/** Each test's buggy project, scripted Anthropic server and runtimes (closed after the test). */
export interface RuntimeFixture {
  readonly root: string;
  readonly project: string;
  readonly model: ScriptedModel;
  /** A runtime on the project and the model, recording every event and notice it sends. */
  start(
    options?: Partial<Parameters<typeof createRuntime>[0]>,
  ): Promise<{ runtime: Runtime; events: (SessionEvent | RuntimeNotice)[] }>;
  /** A project file's text. */
  read(path: string): Promise<string>;
  /** The kinds of the turns a stored session's transcript holds on its current branch. */
  storedKinds(sessionId: string): Promise<string[]>;
}

/** Registers the per-test set-up and clean-up of runtime tests; call at a test file's top level. */
export function runtimeFixture(): RuntimeFixture {
  let root = "";
  let project = "";
  let remove: () => Promise<void> = async () => {};
  let model: ScriptedModel | undefined;
  const open: Runtime[] = [];
  beforeEach(async () => {
    ({ root, project, remove } = await buggyProject());
    model = await startScriptedModel("anthropic");
  });
  afterEach(async () => {
    for (const r of open.splice(0)) await r.close().catch(() => {});
    await model?.close();
    await remove();
  });
  const scripted = (): ScriptedModel => {
    if (!model) throw new Error("the fixture is used outside a test");
    return model;
  };
  const home = () => join(root, "attractor");
  return {
    get root() {
      return root;
    },
    get project() {
      return project;
    },
    get model() {
      return scripted();
    },
    async start(options = {}) {
      const runtime = await createRuntime({
        projectDir: project,
        ui: NO_ONE,
        home: home(),
        env: { PATH: pathWithoutPackageBins(), HOME: join(root, "user"), ...scripted().env() },
        durable: false,
        ...options,
      });
      open.push(runtime);
      const events: (SessionEvent | RuntimeNotice)[] = [];
      runtime.subscribe((update) => events.push(updateItem(update)));
      return { runtime, events };
    },
    read: (path) => readFile(join(project, path), "utf8"),
    async storedKinds(sessionId) {
      const transcript = await createSessionStore({ home: home() }).load(sessionId, project);
      return turnsOf<{ kind: string }>(transcript).map((t) => t.kind);
    },
  };
}
