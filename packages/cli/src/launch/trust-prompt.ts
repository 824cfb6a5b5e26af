import { createInterface } from "node:readline/promises";
import type { ProjectTrustRequest } from "@attractor/runtime";

/**
 * Asks on the terminal whether to trust a project's settings, before the interactive UI starts;
 * resolves true only for an explicit yes.
 */
export async function askProjectTrust(
  request: ProjectTrustRequest,
  io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream },
): Promise<boolean> {
  io.output.write(
    `${request.changed ? "The settings of this project changed since you last decided on them." : "This project has its own attractor settings."}\n` +
      `  ${request.projectDir} wants: ${request.withheld.join(", ")}\n` +
      "Project settings and servers can send your API key to another server, run commands without asking or pass secrets to the shell.\n" +
      "Trust them only if you trust whoever wrote this repository. Without trust they are ignored.\n",
  );
  const rl = createInterface({ input: io.input, output: io.output });
  // Input that ends before an answer (Ctrl-D) is a no.
  const closed = new Promise<string>((resolve) => rl.once("close", () => resolve("")));
  try {
    const answer = (await Promise.race([rl.question("Trust this project's settings? [y/N] "), closed]))
      .trim()
      .toLowerCase();
    return answer === "y" || answer === "yes";
  } finally {
    rl.close();
  }
}
