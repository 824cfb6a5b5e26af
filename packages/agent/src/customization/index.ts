export * from "./claude-code-names.js";
export * from "./frontmatter.js";
export * from "./markdown-folder.js";
export * from "./skills.js";
export * from "./subagent-types.js";
