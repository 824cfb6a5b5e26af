// Loaded with `node --import <this file>`: registers resolve hooks that append every module URL
// the process resolves to the file named by ATTRACTOR_IMPORT_LOG (tests check what start-up loads).
import { register } from "node:module";

register("./record-imports-hooks.mjs", import.meta.url, {
  data: { log: process.env.ATTRACTOR_IMPORT_LOG },
});
