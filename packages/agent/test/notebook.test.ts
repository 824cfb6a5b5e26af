import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { notebookEditTool } from "../src/tools/notebook/index.js";
import { readFileTool } from "../src/tools/read-file.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";
import { tempDir } from "./support/fixtures.js";

// The official nbformat 4.5 schema (see fixtures/nbformat/LICENSE). It declares draft-04, whose
// keywords it uses are the same in the draft ajv speaks; only the declaration is left out.
const { $schema: _draft, ...schema } = JSON.parse(
  readFileSync(new URL("./fixtures/nbformat/nbformat.v4.5.schema.json", import.meta.url), "utf8"),
) as Record<string, unknown>;
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const problems = (nb: unknown) =>
  validate(nb) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

// 1x1 transparent PNG.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const NOTEBOOK = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {
    kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
    language_info: { name: "python" },
  },
  cells: [
    { id: "intro", cell_type: "markdown", metadata: {}, source: ["# Analysis\n", "Loads the data."] },
    {
      id: "load",
      cell_type: "code",
      execution_count: 1,
      metadata: {},
      source: ["import math\n", "print('loaded', 3)\n", "math.pi"],
      outputs: [
        { output_type: "stream", name: "stdout", text: ["loaded 3\n"] },
        {
          output_type: "execute_result",
          execution_count: 1,
          metadata: {},
          data: { "text/plain": ["3.141592653589793"] },
        },
      ],
    },
    {
      id: "plot",
      cell_type: "code",
      execution_count: 2,
      metadata: {},
      source: "plot()",
      outputs: [
        {
          output_type: "display_data",
          metadata: {},
          data: { "image/png": PNG, "text/plain": ["<Figure size 640x480>"] },
        },
      ],
    },
    {
      id: "broken",
      cell_type: "code",
      execution_count: 3,
      metadata: {},
      source: "1/0",
      outputs: [
        {
          output_type: "error",
          ename: "ZeroDivisionError",
          evalue: "division by zero",
          traceback: ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"],
        },
      ],
    },
  ],
};

let dir: string;
let remove: () => Promise<void>;
let env: LocalExecutionEnvironment;
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterAll(() => remove());

const run = async (tool: RegisteredTool, args: Record<string, unknown>) =>
  (await tool.executor(args, env, { toolCallId: "n" })) as ToolOutput;
const load = async (name: string) => JSON.parse(await readFile(join(dir, name), "utf8"));

describe("notebooks", () => {
  it("starts from a notebook the official schema accepts, and the schema does reject a broken one", () => {
    expect(problems(NOTEBOOK)).toEqual([]);
    const broken = { ...NOTEBOOK, cells: [{ cell_type: "code", source: "x", metadata: {} }] };
    expect(problems(broken).length).toBeGreaterThan(0);
  });

  it("read_file shows cells with their outputs, the image as an image, tracebacks without colour codes", async () => {
    await writeFile(join(dir, "read.ipynb"), JSON.stringify(NOTEBOOK, null, 1));
    const out = await run(readFileTool(), { file_path: "read.ipynb" });
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("Jupyter notebook (nbformat 4.5, python), 4 cells");
    expect(out.output).toContain("### Cell 1 [markdown] id=intro\n# Analysis\nLoads the data.");
    expect(out.output).toContain(
      "### Cell 2 [code] id=load, execution 1\nimport math\nprint('loaded', 3)\nmath.pi",
    );
    expect(out.output).toContain("[stdout]\nloaded 3");
    expect(out.output).toContain("[result]\n3.141592653589793");
    expect(out.output).toContain("[image: image/png]");
    expect(out.output).toContain("[error] ZeroDivisionError: division by zero");
    expect(out.output).not.toContain("\u001b[");
    expect(out.image).toEqual({ data: PNG, mediaType: "image/png" });
    // offset and limit count cells.
    const one = await run(readFileTool(), { file_path: "read.ipynb", offset: 4, limit: 1 });
    expect(one.output).toContain("showing cells 4-4");
    expect(one.output).not.toContain("Cell 3");
    expect(one.image).toBeUndefined();
  });

  it("notebook_edit replaces, inserts and deletes cells by id or number, and the notebook stays valid", async () => {
    const path = "edit.ipynb";
    await writeFile(join(dir, path), JSON.stringify(NOTEBOOK, null, 1));
    const edit = notebookEditTool();

    const replaced = await run(edit, {
      notebook_path: path,
      cell_id: "load",
      new_source: "import math\nmath.tau\n",
    });
    expect(replaced.output).toContain("Replaced cell 2 (id load); its outputs were cleared.");
    let nb = await load(path);
    expect(nb.cells[1]).toEqual({
      id: "load",
      cell_type: "code",
      metadata: {},
      source: ["import math\n", "math.tau\n"],
      execution_count: null,
      outputs: [],
    });
    expect(problems(nb)).toEqual([]);

    const inserted = await run(edit, {
      notebook_path: path,
      cell_number: 2,
      edit_mode: "insert",
      cell_type: "markdown",
      new_source: "## Results",
    });
    expect(inserted.output).toContain("Inserted a markdown cell as cell 3");
    nb = await load(path);
    expect(nb.cells[2]).toMatchObject({ cell_type: "markdown", source: ["## Results"] });
    expect(nb.cells[2].id).toMatch(/^[0-9a-f]{8}$/);
    expect(nb.cells[2]).not.toHaveProperty("outputs");
    expect(problems(nb)).toEqual([]);

    // A markdown cell turned into code gets what code cells need.
    await run(edit, { notebook_path: path, cell_id: "intro", new_source: "print('hi')", cell_type: "code" });
    nb = await load(path);
    expect(nb.cells[0]).toMatchObject({ id: "intro", cell_type: "code", outputs: [], execution_count: null });
    expect(problems(nb)).toEqual([]);

    const deleted = await run(edit, { notebook_path: path, cell_id: "broken", edit_mode: "delete" });
    expect(deleted.output).toContain("Deleted cell 5 (code, id broken); 4 cells remain.");
    nb = await load(path);
    expect(nb.cells.map((c: { id: string }) => c.id)).not.toContain("broken");
    expect(problems(nb)).toEqual([]);
    // One-space indentation as Jupyter writes, the keys in the order the file had them, a final newline.
    expect(await readFile(join(dir, path), "utf8")).toMatch(
      /^\{\n "nbformat": 4,\n "nbformat_minor": 5,[\s\S]*\}\n$/,
    );
  });

  it("refuses what it cannot do and leaves the file as it was", async () => {
    const path = "keep.ipynb";
    const text = JSON.stringify(NOTEBOOK, null, 1);
    await writeFile(join(dir, path), text);
    const edit = notebookEditTool();
    const missing = await run(edit, { notebook_path: path, cell_id: "nope", new_source: "x" });
    expect(missing.errorCode).toBe("cell_not_found");
    const noType = await run(edit, { notebook_path: path, edit_mode: "insert", new_source: "x" });
    expect(noType.output).toContain("insert needs cell_type");
    await writeFile(
      join(dir, "old.ipynb"),
      JSON.stringify({ nbformat: 3, nbformat_minor: 0, worksheets: [] }),
    );
    const old = await run(edit, { notebook_path: "old.ipynb", cell_number: 1, new_source: "x" });
    expect(old.errorCode).toBe("invalid_notebook");
    expect(await readFile(join(dir, path), "utf8")).toBe(text);
  });
});
