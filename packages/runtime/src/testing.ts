/**
 * `@graphplan/runtime/testing`: deterministic stand-ins for tests, yours included — a local server
 * that speaks the model providers' wire formats (for the real SDK clients), with answers and faults
 * you script — and a sandbox that runs no process, answering commands from a table
 * (`TestSandbox`, `testSandboxLayer`). The scripted model (`LanguageModel.layerScripted`, the
 * `scripted` provider) and the in-memory workspace (`Workspace.layerMemory`) are on the main entry:
 * users run them outside tests too.
 */
export { TestSandbox, testSandboxLayer } from "./sandbox/test-sandbox.js";
export type { TestAnswer } from "./sandbox/test-sandbox.js";
export {
  startProviderServer,
  eventually,
  anthropicMessage,
  anthropicError,
  openaiCompletion,
  openaiError,
} from "./testing/provider-server.js";
export type { Answer, Answers, ProviderServer, ReceivedRequest } from "./testing/provider-server.js";
export { modelOverWire, DEFAULT_WIRE } from "./testing/replay-wire.js";
export type { WireConfig } from "./testing/replay-wire.js";
export { startModelServer, countTokens } from "./testing/model-server.js";
export type { ModelServer, ModelServerStats, BilledRequest } from "./testing/model-server.js";
