export { createScrubber, REDACTED, secretValuesFromEnv } from "./scrub.js";
export {
  createSessionStore,
  encodeProjectDir,
  firstUserText,
  SessionNotFoundError,
  type SessionStore,
  type SessionStoreOptions,
  type SessionSummary,
  type SessionWriter,
  turnsOf,
} from "./session-store.js";
export {
  activeBranch,
  readTranscript,
  type SessionHeader,
  type Transcript,
  type TranscriptEntry,
  type TranscriptWarning,
} from "./transcript.js";
export { packTurn, unpackTurn } from "./turn-codec.js";
