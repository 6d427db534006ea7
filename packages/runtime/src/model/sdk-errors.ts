/**
 * Maps what the providers' SDKs throw to `ModelRequestFailed`. Both SDKs (Stainless-generated) have the
 * same error classes: `APIError` (the server answered with a status), `APIConnectionError` (no answer),
 * `APIConnectionTimeoutError` (no answer in time), `APIUserAbortError` (the request was aborted).
 */
import { errorText } from "../errors.js";
import type { ModelConfig } from "./config.js";
import { ModelRequestFailed } from "./errors.js";

type ErrorClass = abstract new (...args: never[]) => Error;

/** The SDK's error classes, from its module (`import("openai")`, `import("@anthropic-ai/sdk")`). */
export interface SdkErrorClasses {
  readonly APIError: ErrorClass;
  readonly APIConnectionError: ErrorClass;
  readonly APIConnectionTimeoutError: ErrorClass;
  readonly APIUserAbortError: ErrorClass;
}

const MAX_DETAIL = 2000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The messages of an error and of its causes: "fetch failed: connect ECONNREFUSED 127.0.0.1:9". */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const text = errorText(current);
    if (text && !parts.includes(text)) parts.push(text);
    current = isRecord(current) ? current.cause : undefined;
  }
  return parts.join(": ");
}

/**
 * The server's own words. Anthropic's body is `{type: "error", error: {type, message}}` (the SDK keeps the
 * whole body in `error`); OpenAI's is `{error: {message, type, code}}` (the SDK keeps the inner object).
 */
function serverDetail(error: Error): string {
  const body = (error as { error?: unknown }).error;
  const inner = isRecord(body) && isRecord(body.error) ? body.error : body;
  const message = isRecord(inner) && typeof inner.message === "string" ? inner.message : undefined;
  const type = isRecord(inner) && typeof inner.type === "string" ? inner.type : undefined;
  const requestId = (error as { requestID?: unknown }).requestID;
  // Without a JSON message the SDK's own message is "<status> <body text>".
  const text = message ?? error.message;
  const detail = `${type && type !== "error" ? `${type}: ` : ""}${text}${typeof requestId === "string" && requestId ? ` (request id ${requestId})` : ""}`;
  return detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail;
}

export function requestFailed(
  sdk: SdkErrorClasses,
  config: ModelConfig,
  baseUrl: string,
  error: unknown,
): ModelRequestFailed {
  const failed = (status: number | undefined, detail: string) =>
    new ModelRequestFailed({ provider: config.provider, model: config.model, status, detail });
  const attempts = `${config.maxRetries + 1} attempt${config.maxRetries === 0 ? "" : "s"}`;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return failed(
      undefined,
      `no answer from ${baseUrl} within timeoutMs=${config.timeoutMs} ms (${attempts}); raise timeoutMs or check that the server answers`,
    );
  }
  if (error instanceof sdk.APIUserAbortError) return failed(undefined, "the request was aborted");
  if (error instanceof sdk.APIConnectionError) {
    return failed(undefined, `could not reach ${baseUrl} (${attempts}): ${causeChain(error)}`);
  }
  if (error instanceof sdk.APIError) {
    const status = (error as { status?: unknown }).status;
    return failed(typeof status === "number" ? status : undefined, serverDetail(error));
  }
  // Anything else the SDK threw before or after the HTTP exchange (an invalid parameter, an unreadable answer).
  return failed(undefined, causeChain(error));
}
