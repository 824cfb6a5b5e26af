import { type ConnectionOptions, Queue } from "bullmq";

/**
 * BullMQ's event stream is kept this short: nothing of the fleet reads it, and at BullMQ's 10 000
 * entries it would be most of Redis's memory once results live in the store.
 */
const EVENTS_KEPT = 500;

/** A BullMQ queue handle for a fleet queue (every handle writes the same queue settings). */
export function openQueue(name: string, connection: ConnectionOptions): Queue {
  return new Queue(name, { connection, streams: { events: { maxLen: EVENTS_KEPT } } });
}
