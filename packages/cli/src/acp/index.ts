export { type AcpAgentOptions, createAcpAgent, type SessionDefaults } from "./agent.js";
export { runAcpCommand } from "./command.js";
