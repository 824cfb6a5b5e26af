import { readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODE_INTELLIGENCE_TOOL_NAMES } from "../src/lsp/definitions.js";
import { type LspProject, openLspProject } from "./support/lsp-project.js";

// One project and one typescript-language-server for the whole file.
let project: LspProject;
beforeAll(async () => {
  project = await openLspProject("typescript");
}, 60_000);
afterAll(() => project?.close());

describe("code intelligence on a TypeScript project, through a Session", () => {
  it("offers the nine tools and the code-navigation guidance when a server is available", async () => {
    expect(project.installed).toBe(true);
    await project.call("get_document_symbols", { path: "src/shape.ts" });
    const request = project.requests[0]!;
    expect(request.tools?.map((t) => t.name)).toEqual(
      expect.arrayContaining([...CODE_INTELLIGENCE_TOOL_NAMES]),
    );
    const system = request.messages[0]!.content[0] as { text: string };
    expect(system.text).toContain("# Code navigation strategy");
    expect(system.text).toContain("Use find_definition to follow a call");
  });

  it("find_definition follows an import to the class in another file", async () => {
    const r = await project.call("find_definition", { path: "src/main.ts", symbolName: "Circle", line: 10 });
    expect(r.isError).toBe(false);
    // `new Circle(1)` points at the class and at its constructor.
    expect(r.output).toContain("2 definitions of `Circle` at src/main.ts:10:32:");
    expect(r.output).toContain("src/circle.ts:4:3");
    expect(r.output).toContain("src/circle.ts:3:14");
    expect(r.output).toContain("→ 3: export class Circle extends BaseShape {");
    expect(r.sentToModel).toContain("src/circle.ts:3:14");
  });

  it("find_references lists every use across files, grouped with context", async () => {
    const r = await project.call("find_references", { path: "src/shape.ts", symbolName: "BaseShape" });
    expect(r.output).toMatch(/^4 references to `BaseShape` at src\/shape\.ts:7:23 in 2 files:/);
    expect(r.output).toContain("src/circle.ts:1:10");
    expect(r.output).toContain("src/circle.ts:3:29");
    expect(r.output).toContain("→ 3: export class Square extends BaseShape {");
    const withDeclaration = await project.call("find_references", {
      path: "src/shape.ts",
      symbolName: "BaseShape",
      includeDeclaration: true,
    });
    expect(withDeclaration.output).toMatch(/^5 references/);
  });

  it("get_document_symbols gives an indented outline with line ranges", async () => {
    const r = await project.call("get_document_symbols", { path: "src/shape.ts" });
    expect(r.output).toContain(
      [
        "interface Shape (lines 2-5)",
        "  method area (line 3)",
        "  method describe (line 4)",
        "class BaseShape (lines 7-13)",
      ].join("\n"),
    );
    expect(r.output).toContain("function formatArea (lines 16-18)");
  });

  it("find_symbol finds a class by name without knowing its file", async () => {
    const r = await project.call("find_symbol", { query: "Square" });
    expect(r.output).toContain("class Square — src/square.ts:3:1");
  });

  it("get_hover_info gives the signature and documentation", async () => {
    const r = await project.call("get_hover_info", { path: "src/main.ts", symbolName: "formatArea" });
    expect(r.output).toMatch(/Symbol "formatArea" was not found/);
    const hover = await project.call("get_hover_info", { path: "src/shape.ts", symbolName: "formatArea" });
    expect(hover.output).toContain("function formatArea(value: number): string");
    expect(hover.output).toContain("Two decimals.");
  });

  it("get_call_hierarchy traces callers and callees", async () => {
    const r = await project.call("get_call_hierarchy", { path: "src/main.ts", symbolName: "totalArea" });
    expect(r.output).toContain("function totalArea — src/main.ts:5:17");
    expect(r.output).toContain("← function report — src/main.ts:9:17 (calls at 11:19)");
    expect(r.output).toContain("→ method area — src/shape.ts:3:3");
    const incoming = await project.call("get_call_hierarchy", {
      path: "src/shape.ts",
      symbolName: "formatArea",
      direction: "incoming",
    });
    expect(incoming.output).toContain("← method describe");
    expect(incoming.output).not.toContain("Outgoing calls");
  });

  it("find_implementations finds the classes implementing an interface", async () => {
    const r = await project.call("find_implementations", { path: "src/shape.ts", symbolName: "Shape" });
    for (const where of [
      "src/shape.ts:7:23",
      "src/circle.ts:3:14",
      "src/square.ts:3:14",
      "src/unit-circle.ts:3:14",
    ]) {
      expect(r.output).toContain(where);
    }
  });

  it("get_type_hierarchy shows supertypes and subtypes", async () => {
    const r = await project.call("get_type_hierarchy", { path: "src/circle.ts", symbolName: "Circle" });
    expect(r.output).toContain("class Circle — src/circle.ts:3:14");
    expect(r.output).toContain(
      "  ↑ class BaseShape — src/shape.ts:7:23\n    ↑ interface Shape — src/shape.ts:2:18",
    );
    expect(r.output).toContain("  ↓ class UnitCircle — src/unit-circle.ts:3:14");
  });

  it("appends the new type error to an edit's result, and get_diagnostics reports it until fixed", async () => {
    const edit = await project.call("edit_file", {
      file_path: "src/main.ts",
      old_string: "totalArea(shapes)}",
      new_string: 'totalArea("shapes")}',
    });
    expect(edit.isError).toBe(false);
    expect(edit.output).toContain("The language server reports a new error after this change:");
    expect(edit.output).toMatch(
      /src\/main\.ts:11:29 error TS2345: Argument of type 'string' is not assignable/,
    );
    expect(edit.sentToModel).toContain("error TS2345");
    expect(await readFile(path.join(project.dir, "src/main.ts"), "utf8")).toContain('totalArea("shapes")');

    const touched = await project.call("get_diagnostics", {});
    expect(touched.output).toContain("src/main.ts:11:29 error TS2345");

    const fix = await project.call("edit_file", {
      file_path: "src/main.ts",
      old_string: 'totalArea("shapes")}',
      new_string: "totalArea(shapes)}",
    });
    expect(fix.output).not.toContain("language server");
    const clean = await project.call("get_diagnostics", { path: "src/main.ts" });
    expect(clean.output).toBe("No problems reported in src/main.ts.");
  });

  it("write_file of a new file with an error gets its diagnostics too", async () => {
    const r = await project.call("write_file", {
      file_path: "src/broken.ts",
      content: 'import { Circle } from "./circle.js";\n\nexport const c: Circle = 42;\n',
    });
    expect(r.output).toMatch(/src\/broken\.ts:3:14 error TS2322/);
  });

  it("reports only errors an edit added, not those already there", async () => {
    const r = await project.call("edit_file", {
      file_path: "src/broken.ts",
      old_string: "export const c",
      new_string: "// still wrong\nexport const c",
    });
    expect(r.isError).toBe(false);
    expect(r.output).not.toContain("language server");
    const diagnostics = await project.call("get_diagnostics", { path: "src/broken.ts" });
    expect(diagnostics.output).toMatch(/^1 problem in src\/broken\.ts:\nsrc\/broken\.ts:4:14 error TS2322/);
  });

  it("shows the server a file changed outside the tools before answering", async () => {
    await writeFile(
      path.join(project.dir, "src/square.ts"),
      `${await readFile(path.join(project.dir, "src/square.ts"), "utf8")}\nexport function unitSquare(): Square {\n  return new Square(1);\n}\n`,
    );
    const r = await project.call("get_document_symbols", { path: "src/square.ts" });
    expect(r.output).toContain("function unitSquare (lines 13-15)");
  });

  it("get_type_hierarchy walks subtypes of an interface through its implementing class", async () => {
    const r = await project.call("get_type_hierarchy", {
      path: "src/shape.ts",
      symbolName: "Shape",
      direction: "subtypes",
    });
    expect(r.output).toContain(
      [
        "  ↓ class BaseShape — src/shape.ts:7:23",
        "    ↓ class Circle — src/circle.ts:3:14",
        "      ↓ class UnitCircle — src/unit-circle.ts:3:14",
        "    ↓ class Square — src/square.ts:3:14",
      ].join("\n"),
    );
  });

  it("resolves positions by line alone, and says when a symbol is not in the file", async () => {
    const byLine = await project.call("get_hover_info", { path: "src/square.ts", line: 3, character: 14 });
    expect(byLine.output).toContain("class Square");
    const missing = await project.call("find_definition", { path: "src/main.ts", symbolName: "Hexagon" });
    expect(missing.isError).toBe(true);
    expect(missing.output).toBe('Symbol "Hexagon" was not found in src/main.ts.');
  });

  it("says there is no server for a language nobody configured", async () => {
    await project.call("write_file", { file_path: "notes.xyz", content: "some notes\n" });
    const r = await project.call("get_document_symbols", { path: "notes.xyz" });
    expect(r).toMatchObject({
      isError: false,
      output: "No language server for .xyz (configure one in settings under lsp.servers).",
    });
    const missing = await project.call("get_document_symbols", { path: "src/absent.ts" });
    expect(missing.isError).toBe(true);
    expect(missing.output).toContain("src/absent.ts");
  });
});
