export * from "./config.js";
export * from "./environment.js";
export * from "./events.js";
export * from "./hooks.js";
export * from "./profile.js";
export * from "./session.js";
export * from "./tool.js";
export * from "./turn.js";
