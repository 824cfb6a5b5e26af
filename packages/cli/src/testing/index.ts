// Test fixtures for code driving the attractor command: runs of the built command in a throwaway
// home and project, and model replies for each wire protocol from a short script.
export * from "./cli-process.js";
export * from "./scripted-provider.js";
