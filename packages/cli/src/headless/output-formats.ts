/**
 * The headless output formats of --output-format: text; json (one result object); stream-json
 * (Claude Code's message stream); events (attractor's own event stream, every event). Free of
 * imports: argument parsing reads it at start-up.
 */
export const OUTPUT_FORMATS = ["text", "json", "stream-json", "events"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
