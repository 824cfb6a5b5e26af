// `@attractor/cli/config`: settings and trust, compiled into this package's bundle. The same API as
// `@attractor/runtime/config`.
export * from "@attractor/runtime/config";
