import { Client } from "./client.js";

let defaultClient: Client | undefined;

/** The module's default client, built from process.env on first use. */
export function getDefaultClient(): Client {
  defaultClient ??= Client.fromEnv();
  return defaultClient;
}

/** Replaces the module's default client (undefined: rebuild from the environment on next use). */
export function setDefaultClient(client: Client | undefined): void {
  defaultClient = client;
}
