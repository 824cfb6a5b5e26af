/**
 * The prompt in a real terminal, driven by key sequences: text typed before the first frame is
 * kept; a large bracketed paste shows collapsed and reaches the model whole; a pasted image path
 * and Ctrl+V (a fake `xclip` serving the clipboard) attach images that reach the model as image
 * blocks; Ctrl+R finds an earlier message; /model picks another model with arrows and Enter.
 */
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { listModels } from "@attractor/llm";
import { frames, streamEventsFor } from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli } from "../src/testing/index.js";
import {
  anthropicTerminalEnv,
  startCliInTmux,
  type TmuxTerminal,
  terminalWorkspace,
} from "./support/tmux.js";

/** A 1x1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

interface SentBlock {
  readonly type: string;
  readonly text?: string;
  readonly source?: { readonly type: string; readonly media_type: string; readonly data: string };
}
/** Each request's model and the content blocks of its last user message. */
const requests: { model: string; blocks: SentBlock[] }[] = [];

let root: string;
let project: string;
let bin: string;
let server: Server;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-prompt-"));
  bin = join(root, "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(root, "clipboard.png"), PNG);
  // A clipboard holding an image, as xclip serves it on X11.
  await writeFile(
    join(bin, "xclip"),
    `#!/bin/sh\n[ "$*" = "-selection clipboard -t image/png -o" ] || exit 2\nexec cat "${join(root, "clipboard.png")}"\n`,
  );
  await chmod(join(bin, "xclip"), 0o755);
  await writeFile(join(project, "diagram.png"), PNG);
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const users = (body.messages ?? []).filter((m: { role: string }) => m.role === "user");
    const last = users.at(-1)?.content;
    requests.push({
      model: body.model,
      blocks: typeof last === "string" ? [{ type: "text", text: last }] : (last ?? []),
    });
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const frame of frames(
      streamEventsFor([{ type: "text", text: `Answer ${requests.length}.` }], "end_turn", {
        input: 10,
        output: 5,
      }),
    ))
      res.write(frame);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});

afterAll(async () => {
  terminal?.kill();
  server?.closeAllConnections();
  if (server) await new Promise((r) => server.close(r));
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const texts = (blocks: readonly SentBlock[]) =>
  blocks
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
const images = (blocks: readonly SentBlock[]) => blocks.filter((b) => b.type === "image");

describe("the prompt in tmux", () => {
  it("keeps early typing, collapses pastes, attaches images, searches history and picks a model", async () => {
    const { port } = server.address() as AddressInfo;
    const env = {
      ...anthropicTerminalEnv(root, port),
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      DISPLAY: ":42",
    };
    terminal = startCliInTmux("prompt", project, env, ["--provider", "anthropic"]);
    const t = terminal;
    // Typed at once, before the UI has drawn anything: it ends up in the input.
    t.type("early words");
    await t.waitForScreen((s) => /│ › early words/.test(s), "the early typing in the input");
    t.press("C-u");
    await t.waitFor("Ask anything");

    // A large paste stands collapsed in the input and goes to the model whole.
    const log = Array.from({ length: 40 }, (_, i) => `log line ${i + 1}`).join("\n");
    t.type("why does this fail: ");
    t.paste(log);
    await t.waitFor("why does this fail: [Pasted text #1 +39 lines]");
    expect(t.screen()).not.toContain("log line 2");
    t.press("Enter");
    await t.waitFor("Answer 1.");
    expect(texts(requests[0]?.blocks ?? [])).toContain(`why does this fail: ${log}`);

    // A dropped image file (its path pasted) and the clipboard's image go as image blocks.
    t.type("compare ");
    t.paste(join(project, "diagram.png"));
    await t.waitFor("compare [Image #1]");
    t.type(" with ");
    t.press("C-v");
    await t.waitFor("compare [Image #1] with [Image #2]");
    t.press("Enter");
    await t.waitFor("Answer 2.");
    const second = requests[1]?.blocks ?? [];
    expect(texts(second)).toContain("compare [Image #1] with [Image #2]");
    expect(images(second)).toHaveLength(2);
    for (const image of images(second)) {
      expect(image.source?.media_type).toBe("image/png");
      expect(Buffer.from(image.source?.data ?? "", "base64").equals(PNG)).toBe(true);
    }

    // Ctrl+R finds the earlier message; Enter puts it back in the input.
    t.press("C-r");
    await t.waitFor("search history:");
    t.type("compare");
    await t.waitForScreen(
      (s) => /› compare \[Image #1\]/.test(s) && s.includes("search history: compare"),
      "a match",
    );
    t.press("Escape");
    await t.waitForScreen((s) => !s.includes("search history:"), "the search closed");
    t.press("C-r");
    t.type("why does");
    await t.waitFor("search history: why does");
    t.press("Enter");
    // The message comes back as it was typed, its paste collapsed, and goes again whole.
    await t.waitForScreen(
      (s) =>
        !s.includes("search history:") && s.includes("│ › why does this fail: [Pasted text #1 +39 lines]"),
      "the found message in the input",
    );
    t.press("Enter");
    await t.waitFor("Answer 3.");
    expect(texts(requests[2]?.blocks ?? [])).toContain(`why does this fail: ${log}`);

    // /model opens the provider's models; Down and Enter switch to the next one.
    const models = listModels("anthropic").map((m) => m.id);
    const current = requests[0]?.model ?? "";
    const next = models[(models.indexOf(current) + 1) % models.length] as string;
    t.type("/model");
    t.press("Enter");
    await t.waitFor("Model for this session");
    t.press("Down");
    await t.waitForScreen((s) => new RegExp(`❯\\s+(\\d+\\.\\s+)?${next} `).test(s), `${next} highlighted`);
    t.press("Enter");
    await t.waitFor(`Model: ${next}`);
    t.type("hello again");
    t.press("Enter");
    await t.waitFor("Answer 4.");
    expect(requests[3]?.model).toBe(next);
  }, 120_000);
});
