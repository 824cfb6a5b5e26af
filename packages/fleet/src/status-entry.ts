// `@attractor/fleet/status`: what `fleet status` and `fleet transcript` need, without BullMQ (whose
// loading is most of a status command's time), and the errors every fleet command reports.
export { RedisConnectionError, RedisUnreachableError } from "./connection.js";
export { VolatileRedisError } from "./durability.js";
export { UnknownRunError } from "./run.js";
export type { ReadOptions } from "./run-states.js";
export { type FleetStatus, fleetStatus, readTranscript } from "./status.js";
