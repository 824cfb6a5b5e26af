export * from "./code-intelligence.js";
export * from "./definitions.js";
export * from "./errors.js";
export type { LanguageServerStatus } from "./manager.js";
export { type PositionQuery, resolvePosition, type ZeroBasedPosition } from "./position.js";
export * from "./servers.js";
