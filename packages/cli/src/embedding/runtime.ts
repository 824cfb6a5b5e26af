// `@attractor/cli/runtime`: the runtime the command's front ends drive, compiled into this package's
// bundle so the command needs nothing installed. The same API as `@attractor/runtime`, which a
// program embedding the runtime without the command should use instead.
export * from "@attractor/runtime";
