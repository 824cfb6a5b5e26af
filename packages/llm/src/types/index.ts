export * from "./content.js";
export * from "./message.js";
export * from "./request.js";
export * from "./response.js";
export * from "./stream.js";
