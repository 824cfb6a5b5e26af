export * from "./custom-commands.js";
export * from "./expand-command.js";
export * from "./folders.js";
