// @attractor/runtime: the product as a library, between the agent loop and the front ends. Each
// folder is also an entry of its own (`@attractor/runtime/permissions`, `/config`, …) for a program
// that needs one part; this entry holds them all. Nothing here is eager about heavy dependencies:
// the bash parser, the MCP SDK, YAML and the providers' SDKs load on first use.
export * from "./checkpoints/index.js";
export * from "./config/index.js";
export * from "./customization/index.js";
export * from "./hooks/index.js";
export * from "./mcp/index.js";
export * from "./permissions/index.js";
export * from "./query/index.js";
export * from "./runtime/index.js";
export * from "./store/index.js";
