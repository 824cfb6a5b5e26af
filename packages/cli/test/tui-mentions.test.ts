/** @path mentions: which text is a mention, what the model gets for it, and the files Tab offers. */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellContextBlock, typedText } from "@attractor/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_IMAGE_BYTES } from "../src/tui/input/images.js";
import { expandMentions, findMentions } from "../src/tui/input/mentions.js";
import { directoriesOf, fuzzyMatch, listProjectFiles } from "../src/tui/input/project-files.js";

let root: string;
let project: string;
/** A 1x1 PNG: the signature, IHDR, IDAT and IEND chunks. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "attractor-mentions-"));
  project = join(root, "project");
  await mkdir(join(project, "src", "util"), { recursive: true });
  await mkdir(join(project, "dist"), { recursive: true });
  await writeFile(
    join(project, "src", "a.ts"),
    Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n"),
  );
  await writeFile(join(project, "src", "util", "strings.ts"), "export const x = 1;\n");
  await writeFile(join(project, "dist", "a.js"), "built\n");
  await writeFile(join(project, ".gitignore"), "dist/\n");
  await writeFile(join(project, "data.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
  await writeFile(join(project, "logo.png"), PNG);
  await writeFile(join(project, "scan.bmp"), Buffer.from("BM\x36\x00\x00\x00 bitmap bytes", "latin1"));
  await writeFile(join(project, "fake.png"), "not an image at all\n");
  // Over the limit: refused before it is read.
  await writeFile(join(project, "huge.png"), Buffer.alloc(MAX_IMAGE_BYTES + 1024 * 1024, 1));
  await writeFile(join(root, "secret.txt"), "outside\n");
  await symlink(join(root, "secret.txt"), join(project, "link.txt"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("@ mentions", () => {
  it("finds paths and line ranges, not e-mail addresses or trailing punctuation", () => {
    expect(
      findMentions("see @src/a.ts:10-50, and @src/util/ then mail me@example.com or @src/a.ts:7."),
    ).toEqual([
      { raw: "src/a.ts:10-50", path: "src/a.ts", from: 10, to: 50 },
      { raw: "src/util/", path: "src/util/" },
      { raw: "src/a.ts:7", path: "src/a.ts", from: 7, to: 7 },
    ]);
  });

  it("puts the files' content first, labelled as already provided, the message as typed after", async () => {
    const out = await expandMentions("Explain @src/a.ts:10-12 and @src/util", project);
    expect(out.attached).toEqual(["src/a.ts:10-12", "src/util"]);
    expect(out.problems).toEqual([]);
    expect(out.text).toContain(
      '<attached-file path="src/a.ts" lines="10-12">\n10\tline 10\n11\tline 11\n12\tline 12\n</attached-file>',
    );
    expect(out.text).not.toContain("line 13");
    expect(out.text).toContain('<attached-directory path="src/util">\nstrings.ts\n</attached-directory>');
    expect(out.text).toContain("already provided");
    expect(out.text.endsWith("Explain @src/a.ts:10-12 and @src/util")).toBe(true);
  });

  it("the transcript shows the message as typed, without the context put before it", async () => {
    const expanded = await expandMentions("Explain @src/a.ts:1-2", project);
    const stored = shellContextBlock("ls", "a\nb\n", "exit 0") + expanded.text;
    expect(typedText(stored)).toBe("Explain @src/a.ts:1-2");
    // A message that merely starts like a block, without its note, is left whole.
    expect(typedText("<attached-file> is a tag I made up")).toBe("<attached-file> is a tag I made up");
  });

  it("refuses paths outside the project, symbolic links leading out, binary files and ranges past the end", async () => {
    const out = await expandMentions(
      "@../secret.txt @link.txt @data.bin @src/a.ts:99 @no/such/file @types/node",
      project,
    );
    expect(out.attached).toEqual([]);
    expect(out.problems).toEqual([
      "@../secret.txt: only paths inside the project",
      "@link.txt: only paths inside the project",
      "@data.bin: a binary file; not attached",
      "@src/a.ts:99: the file has 60 lines; line 99 is past its end",
    ]);
    // Nothing attached: the message goes as typed.
    expect(out.text).toBe("@../secret.txt @link.txt @data.bin @src/a.ts:99 @no/such/file @types/node");
    expect(out.text).not.toContain("outside");
  });

  it("attaches a mentioned image as an image; other formats, fakes and oversized images are refused with the reason", async () => {
    const out = await expandMentions(
      "What is in @logo.png? Also @scan.bmp @fake.png @huge.png and @src/a.ts:1",
      project,
    );
    expect(out.attached).toEqual(["logo.png", "src/a.ts:1"]);
    expect(out.images).toHaveLength(1);
    expect(out.images[0]?.mediaType).toBe("image/png");
    expect(Buffer.from(out.images[0]?.data ?? "", "base64").equals(PNG)).toBe(true);
    expect(out.text).toContain('<attached-image path="logo.png">');
    expect(out.text).not.toContain("iVBOR");
    expect(out.problems).toEqual([
      "@scan.bmp: BMP images cannot be attached; PNG, JPEG, GIF and WebP can",
      "@fake.png: not a valid PNG, JPEG, GIF or WebP image",
      "@huge.png: the image is 6.0 MB; at most 5 MB can be attached",
    ]);
  });

  it("lists the project's files without .gitignored ones, and matches them fuzzily", async () => {
    const files = await listProjectFiles(project);
    expect(files).toContain("src/a.ts");
    expect(files).toContain("src/util/strings.ts");
    expect(files).toContain(".gitignore");
    expect(files).not.toContain("dist/a.js");
    const paths = [...files, ...directoriesOf(files)];
    expect(paths).toContain("src/util/");
    expect(fuzzyMatch(paths, "strs")[0]).toBe("src/util/strings.ts");
    expect(fuzzyMatch(paths, "src/a")[0]).toBe("src/a.ts");
    expect(fuzzyMatch(paths, "zzz")).toEqual([]);
  });
});
