// OpenTelemetry traces of task attempts against a real redis-server, real attractor processes and
// a loopback OTLP/HTTP receiver: with OTEL_EXPORTER_OTLP_ENDPOINT on the worker, each attempt is
// one trace — a task span with outcome, tokens and cost, a span per model turn and per tool call
// under it — and the OpenTelemetry packages stay out of what the command loads to start.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CLI_PATH, cleanEnv, requireBuiltCli } from "@attractor/cli/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorker, submitTasks } from "../src/index.js";
import { redisUnavailable, startRedis, type TestRedis } from "./support/redis.js";
import { createRepo } from "./support/repo.js";
import { startTaskModel, type TaskModel } from "./support/task-model.js";

const skip = redisUnavailable();
let redis: TestRedis;
let root: string;
let repo: string;
let model: TaskModel;
let receiver: Server;
let endpoint: string;

type Value = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: Value[] };
};
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Value }[];
  status?: { code?: number; message?: string };
};
/** Every span received, with its resource's service name. */
const spans: (OtlpSpan & { service: string })[] = [];
const paths: string[] = [];

const otlpValue = (v: Value | undefined): unknown =>
  v === undefined
    ? undefined
    : (v.stringValue ??
      (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
      v.doubleValue ??
      v.boolValue ??
      v.arrayValue?.values.map(otlpValue));
const attr = (span: OtlpSpan, key: string) => otlpValue(span.attributes.find((a) => a.key === key)?.value);

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  redis = await startRedis();
  root = await mkdtemp(join(tmpdir(), "attractor-fleet-tracing-"));
  repo = await createRepo(root);
  model = await startTaskModel();
  receiver = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => {
      text += d;
    });
    req.on("end", () => {
      paths.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
      const body = JSON.parse(text) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: Value }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const service = String(
          otlpValue(rs.resource.attributes.find((a) => a.key === "service.name")?.value),
        );
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, service });
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await new Promise((r) => receiver?.close(r));
  await model?.close();
  await redis?.destroy();
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(skip)("traces of task attempts", () => {
  it("exports each attempt as a trace: the task, its model turns and its tool calls", async () => {
    await submitTasks(
      [
        { id: "tr-0", repo, prompt: "task:tr-0 write the file", provider: "anthropic" },
        { id: "tr-broken", repo: join(root, "no-such-repo"), prompt: "task:tr-broken x" },
      ],
      { redis: redis.url, queue: "tr", store: join(root, "store"), attempts: 1 },
    );
    await runWorker({
      redis: redis.url,
      queue: "tr",
      store: join(root, "store"),
      command: [process.execPath, CLI_PATH],
      env: cleanEnv(root, { ...model.env(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
      exitWhenIdle: true,
      workRoot: join(root, "work"),
    });
    // The worker sends what it holds before it stops.
    expect(paths[0]).toBe("POST /v1/traces application/json");
    const task = spans.find((s) => s.name === "fleet.task" && attr(s, "attractor.task.id") === "tr-0");
    expect(task).toBeDefined();
    if (task === undefined) return;
    expect(task.service).toBe("attractor-fleet-worker");
    expect(attr(task, "attractor.outcome")).toBe("completed");
    expect(attr(task, "attractor.attempt")).toBe(1);
    expect(attr(task, "attractor.run")).toMatch(/^run-/);
    expect(attr(task, "gen_ai.usage.input_tokens")).toBe(240);
    expect(attr(task, "gen_ai.usage.output_tokens")).toBe(60);
    expect(attr(task, "attractor.turns")).toBe(2);
    expect(attr(task, "attractor.cost_usd")).toBeGreaterThan(0);

    const children = spans.filter((s) => s.traceId === task.traceId && s.spanId !== task.spanId);
    expect(children.every((s) => s.parentSpanId === task.spanId)).toBe(true);
    const chats = children.filter((s) => s.name.startsWith("chat "));
    const tools = children.filter((s) => s.name.startsWith("execute_tool "));
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(attr(chat, "gen_ai.operation.name")).toBe("chat");
      expect(attr(chat, "gen_ai.provider.name")).toBe("anthropic");
      expect(attr(chat, "gen_ai.usage.input_tokens")).toBe(120);
      expect(attr(chat, "gen_ai.usage.output_tokens")).toBe(30);
    }
    expect(chats.map((c) => attr(c, "gen_ai.response.finish_reasons"))).toEqual([["tool_calls"], ["stop"]]);
    expect(
      tools.map((t) => [t.name, attr(t, "gen_ai.tool.name"), attr(t, "attractor.tool.is_error")]),
    ).toEqual([["execute_tool write_file", "write_file", false]]);
    // In order, inside the task's span: the first answer, its tool call, the second answer.
    const ns = (t: string) => BigInt(t);
    const [first, second] = chats.sort((a, b) =>
      ns(a.startTimeUnixNano) < ns(b.startTimeUnixNano) ? -1 : 1,
    );
    const tool = tools[0];
    expect(ns(task.startTimeUnixNano) <= ns(first?.startTimeUnixNano ?? "0")).toBe(true);
    expect(ns(first?.endTimeUnixNano ?? "0") <= ns(tool?.startTimeUnixNano ?? "0")).toBe(true);
    expect(ns(tool?.endTimeUnixNano ?? "0") <= ns(second?.startTimeUnixNano ?? "0")).toBe(true);
    expect(ns(second?.endTimeUnixNano ?? "0") <= ns(task.endTimeUnixNano)).toBe(true);

    // An attempt that failed before the agent ran: its span says so, with the reason.
    const broken = spans.find((s) => s.name === "fleet.task" && attr(s, "attractor.task.id") === "tr-broken");
    expect(broken?.status?.code).toBe(2);
    expect(broken?.status?.message).toContain("cannot prepare");
    expect(attr(broken as OtlpSpan, "attractor.outcome")).toBe("failed");
  }, 90_000);

  it("the command's start-up never loads OpenTelemetry: only the worker's tracing imports it, on demand", async () => {
    const meta = JSON.parse(await readFile(join(dirname(CLI_PATH), "meta.json"), "utf8")) as {
      outputs: Record<string, { inputs: Record<string, unknown>; imports: { path: string; kind: string }[] }>;
    };
    const reach = (from: string) => {
      const seen = new Set<string>();
      const next = [from];
      while (next.length > 0) {
        const file = next.pop() as string;
        if (seen.has(file)) continue;
        seen.add(file);
        for (const i of meta.outputs[file]?.imports ?? [])
          if (i.kind === "import-statement") next.push(i.path);
      }
      return [...seen];
    };
    const withOtel = Object.entries(meta.outputs)
      .filter(([, o]) => Object.keys(o.inputs).some((i) => i.includes("@opentelemetry/")))
      .map(([f]) => f);
    expect(withOtel.length).toBeGreaterThan(0);
    const fleetCommand = Object.keys(meta.outputs).find((f) => /fleet-command-[^/]+\.js$/.test(f)) as string;
    // The fleet library itself (what `fleet worker` loads): the exporter comes only with an endpoint.
    const fleetLibrary = Object.entries(meta.outputs).find(([, o]) =>
      Object.keys(o.inputs).some((i) => i.endsWith("fleet/dist/worker.js")),
    )?.[0] as string;
    expect(fleetLibrary).toBeDefined();
    for (const entry of ["dist/bundle/attractor.js", fleetCommand, fleetLibrary])
      for (const file of reach(entry)) expect(withOtel, `${file}, loaded with ${entry}`).not.toContain(file);
  });
});
