/**
 * `@graphplan/runtime/testing`: deterministic stand-ins for tests, yours included — a local server
 * that speaks the model providers' wire formats (for the real SDK clients), with answers and faults
 * you script. The scripted model (`LanguageModel.layerTest`) and the table sandbox
 * (`Sandbox.layerTest`) are on the main entry.
 */
export {
  startProviderServer,
  eventually,
  anthropicMessage,
  anthropicError,
  openaiCompletion,
  openaiError,
} from "./testing/provider-server.js";
export type { Answer, Answers, ProviderServer, ReceivedRequest } from "./testing/provider-server.js";
