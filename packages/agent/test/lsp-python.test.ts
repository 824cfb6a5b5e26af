import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LspProject, openLspProject } from "./support/lsp-project.js";

// One project and one pyright-langserver for the whole file.
let project: LspProject;
beforeAll(async () => {
  project = await openLspProject("python");
}, 60_000);
afterAll(() => project?.close());

describe("code intelligence on a Python project, through a Session", () => {
  it("is offered because pyright is available for the project", async () => {
    expect(project.installed).toBe(true);
    expect((await project.intelligence.availableServers()).map((s) => s.id)).toEqual(["python"]);
  });

  it("find_definition follows an import to the class in another module", async () => {
    const r = await project.call("find_definition", { path: "zoo/keeper.py", symbolName: "Dog", line: 9 });
    expect(r.output).toContain("Definition of `Dog` at zoo/keeper.py:9:20:");
    expect(r.output).toContain("zoo/animals.py:14:7\n  11:");
    expect(r.output).toContain("→ 14: class Dog(Animal):");
  });

  it("find_references finds the use in another module", async () => {
    const r = await project.call("find_references", { path: "zoo/animals.py", symbolName: "greet" });
    expect(r.output).toContain("1 reference to `greet` at zoo/animals.py:10:9 in 1 file:");
    expect(r.output).toContain('→ 5:     return ", ".join(animal.greet() for animal in animals)');
  });

  it("get_document_symbols outlines classes and their methods", async () => {
    const r = await project.call("get_document_symbols", { path: "zoo/animals.py" });
    expect(r.output).toContain(
      "class Dog (lines 14-16)\n  method sound (lines 15-16)\nclass Puppy (lines 19-21)",
    );
  });

  it("find_symbol searches the workspace index", async () => {
    const r = await project.call("find_symbol", { query: "Puppy" });
    expect(r.output).toContain("class Puppy — zoo/animals.py:19:7");
  });

  it("get_hover_info gives the signature", async () => {
    const r = await project.call("get_hover_info", { path: "zoo/keeper.py", symbolName: "chorus" });
    expect(r.output).toContain("def chorus(animals: list[Animal]) -> str");
  });

  it("get_call_hierarchy follows a call chain three levels up", async () => {
    const r = await project.call("get_call_hierarchy", {
      path: "zoo/animals.py",
      symbolName: "sound",
      line: 8,
      direction: "incoming",
      depth: 3,
    });
    expect(r.output).toContain(
      "  ← function greet (class Animal (animals.py)) — zoo/animals.py:10:9 (calls at 11:51)",
    );
    expect(r.output).toMatch(/\n {4}← function chorus[^\n]*zoo\/keeper\.py:4:5/);
    expect(r.output).toMatch(/\n {6}← function morning[^\n]*zoo\/keeper\.py:8:5/);
  });

  it("find_implementations finds overriding methods and subclasses (pyright has no implementation search)", async () => {
    const methods = await project.call("find_implementations", {
      path: "zoo/animals.py",
      symbolName: "sound",
    });
    expect(methods.output).toContain("3 implementations of `sound`");
    for (const line of [15, 20, 25]) expect(methods.output).toContain(`zoo/animals.py:${line}:9`);
    const classes = await project.call("find_implementations", {
      path: "zoo/keeper.py",
      symbolName: "Animal",
    });
    expect(classes.output).toContain("3 implementations of `Animal`");
    expect(classes.output).toContain("→ 19: class Puppy(Dog):");
  });

  it("get_type_hierarchy shows a class hierarchy both ways", async () => {
    const r = await project.call("get_type_hierarchy", { path: "zoo/keeper.py", symbolName: "Dog" });
    expect(r.output).toContain("class Dog — zoo/animals.py:14:7");
    expect(r.output).toContain("Supertypes:\n  ↑ class Animal — zoo/animals.py:4:7");
    expect(r.output).toContain("Subtypes:\n  ↓ class Puppy — zoo/animals.py:19:7");
    const down = await project.call("get_type_hierarchy", {
      path: "zoo/animals.py",
      symbolName: "Animal",
      direction: "subtypes",
    });
    expect(down.output).toContain(
      "  ↓ class Dog — zoo/animals.py:14:7\n    ↓ class Puppy — zoo/animals.py:19:7",
    );
    expect(down.output).toContain("  ↓ class Cat — zoo/animals.py:24:7");
    expect(down.output).not.toContain("Supertypes");
    const up = await project.call("get_type_hierarchy", {
      path: "zoo/animals.py",
      symbolName: "Puppy",
      direction: "supertypes",
    });
    expect(up.output).toContain(
      "  ↑ class Dog — zoo/animals.py:14:7\n    ↑ class Animal — zoo/animals.py:4:7\n      ↑ class ABC — ",
    );
    expect(up.output).toMatch(/↑ class ABC — \S*typeshed\S*\/abc\.pyi:\d+:7/);
  });

  it("appends the type error an apply_patch introduced", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: zoo/keeper.py",
      "@@",
      " def count_legs(n: int) -> int:",
      "     return n * 4",
      "+",
      "+",
      '+LEGS = count_legs("four")',
      "*** End Patch",
    ].join("\n");
    const r = await project.call("apply_patch", { patch });
    expect(r.isError).toBe(false);
    expect(r.output).toContain("The language server reports a new error after this change:");
    expect(r.output).toMatch(
      /zoo\/keeper\.py:16:19 error[^\n]*"Literal\['four'\]" is not assignable to "int"/,
    );
    const diagnostics = await project.call("get_diagnostics", { path: "zoo/keeper.py" });
    expect(diagnostics.output).toMatch(/^1 problem in zoo\/keeper\.py:\nzoo\/keeper\.py:16:19 error/);
  });

  // Last: it closes the session.
  it("shuts the server down with the session", async () => {
    const [server] = project.intelligence.status();
    expect(server).toMatchObject({ id: "python", state: "running" });
    expect(alive(server!.pid!)).toBe(true);
    await project.session.close();
    await project.intelligence.shutdown();
    expect(project.intelligence.status()[0]!.state).toBe("stopped");
    await until(() => !alive(server!.pid!));
    const after = await project.intelligence
      .tools()[0]!
      .executor({ path: "zoo/keeper.py", line: 1 }, project.env, {
        toolCallId: "late",
      });
    expect(after).toMatchObject({ isError: true, output: "Language servers are shut down." });
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded by the test's timeout) until the condition holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}
