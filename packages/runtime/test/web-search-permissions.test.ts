// web_search as the runtime offers it: a function tool the permission policy judges per call, by
// our name and Claude Code's, and the choice of backend by provider and settings.
import { tmpdir } from "node:os";
import { createWebSearchTool } from "@attractor/agent";
import { describe, expect, it } from "vitest";
import { splitUntrustedSettings } from "../src/config/trust-settings.js";
import {
  createPermissionPolicy,
  type PermissionMode,
  type PermissionPolicyOptions,
  parseRule,
} from "../src/permissions/index.js";
import { chooseWebSearch } from "../src/runtime/web-search.js";

const tool = createWebSearchTool({ search: async () => ({ backend: "test", queries: [], results: [] }) });
let n = 0;
const searchCall = (query: string) => ({ callId: `s${n++}`, toolName: "web_search", arguments: { query } });
const policy = (mode: PermissionMode, extra: Partial<PermissionPolicyOptions> = {}) =>
  createPermissionPolicy({
    mode,
    projectRoot: tmpdir(),
    toolTraits: (name) => (name === "web_search" ? tool : undefined),
    ...extra,
  });

describe("web_search permissions", () => {
  it("is allowed as a read in every mode, plan included, unless a rule says otherwise", async () => {
    for (const mode of ["plan", "normal", "auto-edit", "yolo"] as const)
      expect((await policy(mode).evaluate(searchCall("node 24 release"))).behavior, mode).toBe("allow");
  });

  it("a deny rule refuses with the rule named, in our name and Claude Code's, in every mode", async () => {
    for (const rule of ["WebSearch", "web_search"])
      for (const mode of ["normal", "yolo"] as const) {
        const verdict = await policy(mode, { rules: { deny: [rule] } }).check(searchCall("x"));
        expect(verdict.behavior).toBe("deny");
        expect(verdict.behavior === "deny" && verdict.message).toContain(`"${rule}"`);
      }
  });

  it("an ask rule asks the user, and headless it is refused with the reason", async () => {
    const asked: string[] = [];
    const p = policy("normal", {
      rules: { ask: ["WebSearch"] },
      ask: async (request) => {
        asked.push(String(request.call.arguments.query));
        return "deny";
      },
    });
    expect((await p.check(searchCall("secret project name"))).behavior).toBe("deny");
    expect(asked).toEqual(["secret project name"]);
    const headless = await policy("normal", { rules: { ask: ["WebSearch"] }, headless: true }).check(
      searchCall("x"),
    );
    expect(headless.behavior).toBe("deny");
    expect(headless.behavior === "deny" && headless.reason).toMatch(/asks first/);
  });

  it("a rule with a pattern is a syntax error, not a rule that silently matches nothing", () => {
    expect(parseRule("WebSearch").tools).toEqual(["web_search"]);
    expect(() => parseRule("WebSearch(domain:example.com)")).toThrow(/takes no pattern/);
    expect(() => parseRule("web_search(node*)")).toThrow(/takes no pattern/);
  });
});

describe("which search web_search uses", () => {
  const client = { stream: () => (async function* () {})() };
  const choose = (provider: string, settings?: { enabled?: boolean; searxngUrl?: string }) =>
    chooseWebSearch({ settings, provider, client, model: () => "m" });

  it("the provider's own search where it has one, SearXNG when settings name it, else none with a notice", () => {
    for (const provider of ["anthropic", "openai", "gemini"])
      expect(choose(provider)).toMatchObject({ kind: "offered", backend: provider });
    expect(choose("openai-compatible", { searxngUrl: "http://127.0.0.1:8888" })).toMatchObject({
      kind: "offered",
      backend: "searxng",
    });
    expect(choose("anthropic", { searxngUrl: "http://127.0.0.1:8888" })).toMatchObject({
      backend: "searxng",
    });
    const none = choose("openai-compatible");
    expect(none.kind).toBe("unavailable");
    expect(none.kind === "unavailable" && none.notice).toMatch(
      /web_search is not offered: the openai-compatible provider .* webSearch\.searxngUrl/,
    );
    expect(choose("anthropic", { enabled: false })).toEqual({ kind: "off" });
  });

  it("a project's webSearch waits for trust: its queries would go where the project says", () => {
    const split = splitUntrustedSettings({ webSearch: { searxngUrl: "http://collector.example" } });
    expect(split.withheld).toEqual(["webSearch"]);
    expect(split.harmless.webSearch).toBeUndefined();
  });
});
