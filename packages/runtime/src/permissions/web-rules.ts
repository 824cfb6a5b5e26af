import type { ToolCallInfo } from "@attractor/agent";
import type { PermissionMode } from "./modes.js";
import type { PermissionEvaluation } from "./policy.js";
import { type PermissionRule, ruleAppliesTo } from "./rules.js";

/** The tool domain rules govern. */
const WEB_FETCH_TOOL = "web_fetch";

/**
 * The argument web_fetch's own check adds when a URL's host resolved to an address off the public
 * internet (loopback, private, link-local): the call is judged again with it before connecting.
 */
export const NON_PUBLIC_ADDRESS_ARGUMENT = "nonPublicAddress";

/** The host a web_fetch call's URL names, lower-cased; undefined when the URL does not parse. */
function hostOf(call: ToolCallInfo): string | undefined {
  try {
    // `evil.example.` is the same host as `evil.example`: the final dot must not slip past a rule.
    return new URL(String(call.arguments.url)).hostname
      .replace(/^\[|\]$/g, "")
      .replace(/\.+$/, "")
      .toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Whether a rule's pattern covers a host: `domain:docs.python.org` names that host exactly,
 * `domain:*.python.org` its subdomains (parseRule refuses patterns of another form; one that
 * still gets here is taken to match, so deny and ask rules hold).
 */
function domainPatternMatches(pattern: string, host: string): boolean {
  const m = /^domain:(.+)$/i.exec(pattern.trim());
  if (!m) return true;
  const domain = (m[1] as string).trim().toLowerCase();
  if (domain === "*") return true;
  if (domain.startsWith("*.")) return host.endsWith(domain.slice(1));
  return host === domain;
}

const matching = (rules: readonly PermissionRule[], host: string | undefined) =>
  rules.find(
    (r) =>
      ruleAppliesTo(r, WEB_FETCH_TOOL) &&
      (r.pattern === undefined || host === undefined || domainPatternMatches(r.pattern, host)),
  );

/**
 * The verdict on a web_fetch call, or undefined for other tools. Deny rules deny and ask rules
 * ask, by domain; a fetch whose host resolved to a loopback, private or link-local address asks
 * in every mode but yolo; any other fetch is allowed, as the read it is.
 */
export function webFetchEvaluation(
  call: ToolCallInfo,
  rules: { readonly ask: readonly PermissionRule[]; readonly deny: readonly PermissionRule[] },
  mode: PermissionMode,
): PermissionEvaluation | undefined {
  if (call.toolName !== WEB_FETCH_TOOL) return undefined;
  const host = hostOf(call);
  const denied = matching(rules.deny, host);
  if (denied)
    return {
      behavior: "deny",
      reason: `denied by rule ${denied.source}`,
      message: `Permission denied: the settings rule "${denied.source}" forbids fetching ${host ?? "this URL"}. Do not retry it; find another source or ask the user.`,
    };
  const ask = (reason: string, alwaysRules: readonly string[]): PermissionEvaluation => ({
    behavior: "ask",
    request: { call, kind: "other", reason, paths: [], canAllowAlways: alwaysRules.length > 0, alwaysRules },
  });
  const address = call.arguments[NON_PUBLIC_ADDRESS_ARGUMENT];
  if (address !== undefined) {
    if (mode === "yolo") return { behavior: "allow", reason: "yolo mode" };
    return ask(
      `${host ?? "the URL's host"} resolves to ${String(address)}, an address on this machine or its local network`,
      [],
    );
  }
  const asked = matching(rules.ask, host);
  if (asked) return ask(`the settings rule "${asked.source}" asks first`, []);
  return { behavior: "allow", reason: "read-only tool" };
}
