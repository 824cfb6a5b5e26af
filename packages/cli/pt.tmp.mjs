import { readFileSync } from "node:fs";
const { Parser, Language } = await import("web-tree-sitter");
await Parser.init({ wasmBinary: readFileSync("../../node_modules/web-tree-sitter/web-tree-sitter.wasm") });
const language = await Language.load(readFileSync("../../node_modules/tree-sitter-bash/tree-sitter-bash.wasm"));
const p = new Parser(); p.setLanguage(language);
const show = (n, d=0, field) => { let s = " ".repeat(d*2) + (field? field+": ":"") + (n.isNamed? n.type : JSON.stringify(n.type)) + ` [${n.startIndex},${n.endIndex}] ${JSON.stringify(n.text)}` + (n.isError?" ERR":"") + (n.isMissing?" MISSING":"") + "\n"; for (let i=0;i<n.childCount;i++) s += show(n.child(i), d+1, n.fieldNameForChild(i)); return s; };
for (const line of process.argv.slice(2)) { const t = p.parse(line); console.log(JSON.stringify(line)); console.log(show(t.rootNode)); }
