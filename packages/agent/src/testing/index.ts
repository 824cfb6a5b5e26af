// Test fixtures for code built on @attractor/agent: a scripted model client, an environment on
// plain Node calls, models behind local wire servers per protocol, a throwaway sshd, and a
// Podman with an image made from this machine's own programs.
export * from "./node-environment.js";
export * from "./podman.js";
export * from "./scripted-client.js";
export * from "./sshd.js";
export * from "./wire-model.js";
