export {};
export * from "./prompted/index.js";
