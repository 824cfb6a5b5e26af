// Derives JSON Schemas for the request bodies of OpenAI's Responses and Chat Completions APIs and
// Anthropic's Messages API from the official SDKs' TypeScript request types, so the wire tests can
// check every body an adapter sends against what the vendor publishes. Objects are closed
// (additionalProperties: false) as the SDK types are. Run after upgrading an SDK:
//   node packages/llm/scripts/generate-request-schemas.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createGenerator } from "ts-json-schema-generator";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "src", "testing", "specs");
const require = createRequire(import.meta.url);

const SPECS = [
  {
    file: "openai-responses.schema.json",
    pkg: "openai",
    types: "resources/responses/responses.d.ts",
    type: "ResponseCreateParamsBase",
    // The SDK types mark `logprobs` optional on output text, but OpenAI's OpenAPI specification
    // (OutputTextContent) requires it, so an assistant message sent back must carry it.
    required: { ResponseOutputText: ["logprobs"] },
  },
  {
    file: "openai-chat-completions.schema.json",
    pkg: "openai",
    types: "resources/chat/completions/completions.d.ts",
    type: "ChatCompletionCreateParamsBase",
  },
  {
    file: "anthropic-messages.schema.json",
    pkg: "@anthropic-ai/sdk",
    types: "resources/messages/messages.d.ts",
    type: "MessageCreateParamsBase",
    // The SDK's types no longer list the sampling parameters, which API version 2023-06-01 (the one
    // the SDK sends) still accepts from models before the ones that reject them; they are added
    // back so a request that sets them is checked for their types rather than refused outright.
    supplement: {
      temperature: { type: "number", minimum: 0, maximum: 1 },
      top_p: { type: "number", minimum: 0, maximum: 1 },
      top_k: { type: "integer", minimum: 0 },
    },
  },
];

for (const spec of SPECS) {
  // Some SDKs do not export package.json; their root is found from a search path instead.
  const root = require.resolve
    .paths(spec.pkg)
    .map((p) => join(p, spec.pkg))
    .find((p) => {
      try {
        return readFileSync(join(p, "package.json")).length > 0;
      } catch {
        return false;
      }
    });
  const pkgJson = join(root, "package.json");
  const { version } = JSON.parse(readFileSync(pkgJson, "utf8"));
  const generator = createGenerator({
    path: join(root, spec.types),
    type: spec.type,
    skipTypeCheck: true,
    expose: "all",
    topRef: true,
    jsDoc: "none",
    additionalProperties: false,
    sortProps: true,
  });
  const schema = generator.createSchema(spec.type);
  if (spec.supplement !== undefined) Object.assign(schema.definitions[spec.type].properties, spec.supplement);
  for (const [definition, fields] of Object.entries(spec.required ?? {})) {
    const target = schema.definitions[definition];
    target.required = [...new Set([...(target.required ?? []), ...fields])].sort();
  }
  const document = {
    $comment: `Generated from ${spec.pkg}@${version} (${spec.types}, ${spec.type}) by scripts/generate-request-schemas.mjs; do not edit.`,
    "x-source": {
      package: spec.pkg,
      version,
      type: spec.type,
      ...(spec.supplement !== undefined && { supplemented: Object.keys(spec.supplement).join(", ") }),
      ...(spec.required !== undefined && {
        required: Object.entries(spec.required)
          .map(([definition, fields]) => `${definition}: ${fields.join(", ")}`)
          .join("; "),
      }),
    },
    ...schema,
  };
  writeFileSync(join(out, spec.file), `${JSON.stringify(document, null, 1)}\n`);
  console.log(`${spec.file}: ${spec.pkg}@${version} ${spec.type}`);
}
