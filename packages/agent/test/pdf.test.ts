import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { readFileTool } from "../src/tools/read-file.js";
import type { ToolOutput } from "../src/types/tool.js";
import { tempDir } from "./support/fixtures.js";
import { makePdf } from "./support/make-pdf.js";

let dir: string;
let remove: () => Promise<void>;
let env: LocalExecutionEnvironment;
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
  await writeFile(
    join(dir, "report.pdf"),
    makePdf([
      ["Quarterly report", "Revenue grew by 12 percent."],
      ["Costs (operating) fell to 3.4 million."],
      ["Outlook: steady."],
    ]),
  );
  await writeFile(join(dir, "broken.pdf"), "%PDF-1.4\nthis is not really a pdf\n");
});
afterAll(() => remove());

const read = async (args: Record<string, unknown>) =>
  (await readFileTool().executor(args, env, { toolCallId: "p" })) as ToolOutput;

describe("read_file on a PDF", () => {
  it("returns the text of every page under page headings", async () => {
    const out = await read({ file_path: "report.pdf" });
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("PDF report.pdf, 3 pages; text of pages 1-3.");
    expect(out.output).toContain("--- Page 1 ---\nQuarterly report");
    expect(out.output).toContain("Revenue grew by 12 percent.");
    expect(out.output).toContain("--- Page 2 ---\nCosts (operating) fell to 3.4 million.");
    expect(out.output).toContain("--- Page 3 ---\nOutlook: steady.");
  });

  it("reads a range of pages with offset and limit, and says where the rest is", async () => {
    const out = await read({ file_path: "report.pdf", offset: 2, limit: 1 });
    expect(out.output).toContain("text of pages 2-2. Pages 3-3 follow: read them with offset 3.");
    expect(out.output).toContain("Costs (operating)");
    expect(out.output).not.toContain("Quarterly report");
    expect(out.output).not.toContain("Outlook");
    const past = await read({ file_path: "report.pdf", offset: 9 });
    expect(past.isError).toBe(true);
    expect(past.output).toContain("past the last page of report.pdf (3 pages)");
  });

  it("reports a damaged PDF as an error", async () => {
    const out = await read({ file_path: "broken.pdf" });
    expect(out.isError).toBe(true);
    expect(out.errorCode).toBe("invalid_pdf");
  });
});
