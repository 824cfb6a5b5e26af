export * from "./manager.js";
export * from "./scoped-environment.js";
export * from "./tools.js";
