// `attractor acp` flags: what it reads it carries into every session, and what it accepts
// without honouring it names on stderr.
import { describe, expect, it } from "vitest";
import { acpLaunch } from "../src/launch/acp-launch.js";
import { parseArgs } from "../src/launch/args.js";

const launch = (argv: string[]) => {
  const out: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) } };
  const parsed = parseArgs(argv, "0.0.0", io);
  if (parsed.kind !== "run") throw new Error(`parse failed: ${out.join("")}`);
  const warnings: string[] = [];
  return { result: acpLaunch(parsed.args, "/project", (m) => warnings.push(m)), warnings };
};

describe("attractor acp flags", () => {
  it("--setting-sources reaches the sessions' defaults", () => {
    const { result } = launch(["--setting-sources", "user,local"]);
    expect("defaults" in result && result.defaults.claudeSettingSources).toEqual(["user", "local"]);
  });

  it("Claude Code flags accepted and not honoured are named", () => {
    const { result, warnings } = launch(["--betas", "x", "--debug"]);
    expect("defaults" in result).toBe(true);
    expect(warnings).toEqual([
      "attractor acp: accepted and not honoured (Claude Code flags): --betas, --debug",
    ]);
  });
});
