/** A markdown file split into its YAML frontmatter and body. */
export interface MarkdownDocument {
  /** The frontmatter's fields; {} when the file has none. */
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly body: string;
}

/** Thrown for frontmatter that is not valid YAML or not a mapping. */
export class FrontmatterError extends Error {
  override readonly name = "FrontmatterError";
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Splits `---\nyaml\n---\nbody`; a file without a leading fence is all body. Rejects with
 * FrontmatterError. The YAML parser loads with the first file that has frontmatter, not at start-up.
 */
export async function parseMarkdownDocument(text: string, file: string): Promise<MarkdownDocument> {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (!match) return { attributes: {}, body: source };
  const yaml = await import("yaml");
  // Bundled as CommonJS, the module arrives as its default export.
  const parseYaml = yaml.parse ?? (yaml as unknown as { default: typeof yaml }).default.parse;
  let data: unknown;
  try {
    data = parseYaml(match[1] as string);
  } catch (error) {
    throw new FrontmatterError(file, `invalid frontmatter: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new FrontmatterError(file, "frontmatter must be a mapping of keys to values");
  }
  return { attributes: data as Record<string, unknown>, body: source.slice(match[0].length) };
}

/** A string field, trimmed; undefined when absent or empty. */
export function stringField(attributes: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = attributes[key];
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** A list field written as a YAML list or a comma-separated string; undefined when absent. */
export function listField(
  attributes: Readonly<Record<string, unknown>>,
  key: string,
): readonly string[] | undefined {
  const value = attributes[key];
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter((v) => v !== "");
  if (typeof value === "string") {
    return value
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "");
  }
  return undefined;
}
