// What the interactive UI costs the terminal: bytes written to a pseudo-terminal (120x40, from
// script(1)) and CPU time of the UI's process, against a zero-latency local model
// (OpenAI-compatible Chat Completions served by this process):
//   - 5 s idle at a permission prompt (target: 0 bytes)
//   - 10 s of a running shell command with the spinner (target: at most 10 KB)
//   - one streamed answer of about 7 KB (the bytes the UI writes for it, beside the answer's size;
//     target: at most twice the answer as printed by cat)
//   - launch to the first frame
// Baseline, measured in the same run: `cat` of the 7 KB answer into the same kind of terminal
// (the bytes a plain print of the answer takes).
// Run after `npm run build`: node bench/ui.mjs
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI =
  process.env.ATTRACTOR_CLI ??
  join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "dist", "bundle", "attractor.js");
const COLUMNS = 120;
const ROWS = 40;
const root = mkdtempSync(join(tmpdir(), "attractor-bench-ui-"));
const project = join(root, "project");
mkdirSync(project, { recursive: true });
writeFileSync(
  join(project, "notes.txt"),
  `${Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n")}\n`,
);

/** A Markdown answer of about 7 KB: headings, paragraphs, a list and a code block. */
const ANSWER = (() => {
  const parts = [];
  for (let i = 1; parts.join("").length < 7000; i++) {
    parts.push(`## Part ${i}\n\n`);
    parts.push(
      `This paragraph explains step ${i} of the change in plain words, long enough to wrap on a terminal of a hundred and twenty columns, with \`inline code\` and **bold** words.\n\n`,
    );
    parts.push(`- first point of part ${i}\n- second point of part ${i}\n\n`);
    parts.push(`\`\`\`ts\nexport function step${i}(n: number): number {\n  return n * ${i};\n}\n\`\`\`\n\n`);
  }
  return `${parts.join("").trimEnd()}\n\nEND-OF-ANSWER`;
})();

// ---- the model: what it answers depends on the scenario of the run ----
let scenario = "prompt";
const data = (obj) => `data: ${JSON.stringify(obj)}\n\n`;
const base = { id: "c", object: "chat.completion.chunk", created: 1, model: "bench-model" };
const chunk = (delta, finish = null) =>
  data({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = data({
  ...base,
  choices: [],
  usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
});
const call = (name, args) =>
  chunk({
    tool_calls: [
      { index: 0, id: "call_1", type: "function", function: { name, arguments: JSON.stringify(args) } },
    ],
  });

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => {
    body += d;
  });
  req.on("end", async () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk({ role: "assistant", content: "" }));
    const answered = body.includes('"role":"tool"');
    if (answered) {
      res.write(chunk({ content: "done" }));
      res.write(chunk({}, "stop"));
    } else if (scenario === "prompt") {
      res.write(call("write_file", { file_path: "new.txt", content: "a\nb\nc\n" }));
      res.write(chunk({}, "tool_calls"));
    } else if (scenario === "command") {
      res.write(call("shell", { command: "sleep 13; echo slept" }));
      res.write(chunk({}, "tool_calls"));
    } else {
      // About 100 pieces of 70 bytes, 10 ms apart: a fast model's pace.
      for (let i = 0; i < ANSWER.length; i += 70) {
        res.write(chunk({ content: ANSWER.slice(i, i + 70) }));
        await new Promise((r) => setTimeout(r, 10));
      }
      res.write(chunk({}, "stop"));
    }
    res.write(usage);
    res.end("data: [DONE]\n\n");
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}`;
const env = {
  PATH: process.env.PATH,
  HOME: join(root, "home"),
  ATTRACTOR_HOME: join(root, "attractor-home"),
  LANG: "C.UTF-8",
  TERM: "xterm-256color",
  OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`,
};

/** CPU ms (user + system) of a process and its children so far. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime, stime are fields 14 and 15 (1-based) of the whole line; after "pid (comm) " they are 12 and 13.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}
/** The UI's process: the node child of script's shell (exec'd, so the direct child of script). */
function uiPid(scriptPid) {
  try {
    const kids = readFileSync(`/proc/${scriptPid}/task/${scriptPid}/children`, "utf8").trim().split(/\s+/);
    return Number(kids[0]) || undefined;
  } catch {
    return undefined;
  }
}

/** Starts the UI in a pseudo-terminal of COLUMNS x ROWS; the caller drives it and reads its output. */
function startUi(args) {
  const t0 = performance.now();
  const command = `stty cols ${COLUMNS} rows ${ROWS}; exec "${process.execPath}" "${CLI}" --model bench-model ${args}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: project,
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const ui = { child, out: "", bytes: 0, firstFrameMs: undefined };
  child.stdout.on("data", (d) => {
    ui.bytes += d.length;
    ui.out += d.toString("utf8");
    if (ui.firstFrameMs === undefined && ui.out.includes("for commands"))
      ui.firstFrameMs = performance.now() - t0;
  });
  ui.waitFor = (text, ms = 15_000) =>
    new Promise((resolve, reject) => {
      const start = ui.out.length;
      const deadline = Date.now() + ms;
      const poll = () => {
        if (ui.out.includes(text, Math.max(0, start - 2000))) resolve();
        else if (Date.now() > deadline)
          reject(new Error(`no "${text}" within ${ms} ms: ${ui.out.slice(-400)}`));
        else setTimeout(poll, 20);
      };
      poll();
    });
  ui.type = (text) => child.stdin.write(text);
  ui.stop = () => child.kill("SIGKILL");
  return ui;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Bytes written and CPU used over `ms` from now. */
async function window(ui, ms) {
  const pid = uiPid(ui.child.pid);
  const bytes0 = ui.bytes;
  const cpu0 = pid ? cpuMs(pid) : 0;
  await sleep(ms);
  return { bytes: ui.bytes - bytes0, cpu: pid ? cpuMs(pid) - cpu0 : Number.NaN };
}

const results = [];

// Idle at a permission prompt.
{
  scenario = "prompt";
  const ui = startUi("");
  await ui.waitFor("for commands");
  await sleep(300);
  ui.type("write the file\r");
  await ui.waitFor("Allow once");
  await sleep(500); // the prompt's first frame and any trailing redraws
  const w = await window(ui, 5000);
  results.push({ label: "idle at a permission prompt, 5 s", ...w, target: "0 B", met: w.bytes === 0 });
  results.push({ label: "launch to first frame", ms: ui.firstFrameMs });
  ui.stop();
}

// A running command.
{
  scenario = "command";
  const ui = startUi("--mode yolo");
  await ui.waitFor("for commands");
  await sleep(300);
  ui.type("sleep a while\r");
  await ui.waitFor("sleep 13");
  await sleep(500);
  const w = await window(ui, 10_000);
  results.push({ label: "running shell command, 10 s", ...w, target: "<= 10 KB", met: w.bytes <= 10 * 1024 });
  ui.stop();
}

// One streamed answer.
{
  scenario = "answer";
  const ui = startUi("");
  await ui.waitFor("for commands");
  await sleep(300);
  const pid = uiPid(ui.child.pid);
  const bytes0 = ui.bytes;
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  ui.type("explain\r");
  await ui.waitFor("END-OF-ANSWER", 30_000);
  // The final frame (the answer printed whole once it is final) follows the last piece.
  await sleep(700);
  const w = { bytes: ui.bytes - bytes0, cpu: cpuMs(pid) - cpu0, ms: performance.now() - t0 - 700 };
  results.push({ label: `streamed answer of ${(ANSWER.length / 1024).toFixed(1)} KB`, ...w });
  ui.stop();
}

// Baseline: the answer printed once into the same kind of terminal.
const plain = join(root, "answer.md");
writeFileSync(plain, ANSWER);
const cat = spawnSync("script", ["-qfec", `cat "${plain}"`, "/dev/null"], { encoding: "utf8" });
const baselineBytes = Buffer.byteLength(cat.stdout ?? "");

const kb = (b) => `${(b / 1024).toFixed(1)} KB`.padStart(9);
for (const r of results) {
  if (r.bytes === undefined) {
    console.log(`${r.label.padEnd(40)} ${r.ms.toFixed(0).padStart(6)} ms`);
    continue;
  }
  const ratio = r.bytes / baselineBytes;
  const extra = r.target
    ? `  target ${r.target}: ${r.met ? "met" : "missed"}`
    : `  ${ratio.toFixed(1)}x baseline, target <= 2x: ${ratio <= 2 ? "met" : "missed"}`;
  console.log(`${r.label.padEnd(40)} ${kb(r.bytes)} written  ${r.cpu.toFixed(0).padStart(5)} ms CPU${extra}`);
}
console.log(`baseline: the same answer printed by cat into a pseudo-terminal: ${kb(baselineBytes).trim()}`);
server.close();
rmSync(root, { recursive: true, force: true });
