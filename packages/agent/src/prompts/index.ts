export * from "./code-navigation.js";
export * from "./doc-imports.js";
export * from "./environment-block.js";
export * from "./git-snapshot.js";
export * from "./nested-docs.js";
export * from "./project-docs.js";
export * from "./system-prompt.js";
