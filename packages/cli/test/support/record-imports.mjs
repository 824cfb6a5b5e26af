// Loaded with `node --import <this file>`: appends every module URL the process resolves to the
// file named by ATTRACTOR_IMPORT_LOG (tests check what start-up loads): ES modules through resolve
// hooks, CommonJS files through require, and the scripts the code-cached loader compiles.

import { appendFileSync } from "node:fs";
import { createRequire, register, syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";

const log = process.env.ATTRACTOR_IMPORT_LOG;
register("./record-imports-hooks.mjs", import.meta.url, { data: { log } });

const require = createRequire(import.meta.url);
const Module = require("node:module");
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  if (log && file.startsWith("/")) appendFileSync(log, `${pathToFileURL(file).href}\n`);
  return file;
};
const vm = require("node:vm");
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    if (log && options?.filename?.startsWith("/"))
      appendFileSync(log, `${pathToFileURL(options.filename).href}\n`);
  }
};
syncBuiltinESMExports();

// Node's own fetch implementation (its bundled undici) is compiled on the first touch of one of
// its classes: logged as a module of its own at exit.
process.on("exit", () => {
  if (log && process.moduleLoadList.some((m) => m.endsWith("internal/deps/undici/undici")))
    appendFileSync(log, "node:internal/deps/undici/undici\n");
});
