/**
 * Tagged errors of the LanguageModel service. Each message says what was wrong and what to do about it.
 */
import * as Data from "effect/Data";

/** The provider answered with an error, or could not be reached (after the SDK's own retries). */
export class ModelRequestFailed extends Data.TaggedError("ModelRequestFailed")<{
  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly detail: string;
}> {
  /**
   * An outage rather than a mistake: no answer, a timeout, 408/409/429, a 5xx or Anthropic's 529
   * ("overloaded"), still failing after the SDK's retries. Running the same request later may work.
   */
  get retryable(): boolean {
    return (
      this.status === undefined ||
      this.status === 408 ||
      this.status === 409 ||
      this.status === 429 ||
      this.status >= 500
    );
  }

  override get message(): string {
    const status = this.status === undefined ? "no response" : `HTTP ${this.status}`;
    return `${this.provider} model ${this.model} failed (${status}): ${this.detail}; ${adviceFor(this.status)}`;
  }
}

/** What to do about a failed request, by its HTTP status. */
function adviceFor(status: number | undefined): string {
  if (status === undefined) return "check the base URL and the network, or try again later";
  if (status === 401 || status === 403) return "check the API key (and that it may use this model)";
  if (status === 404) return "check the model name and the base URL";
  if (status === 400 || status === 413 || status === 422)
    return "the request was refused as it was sent: see the provider's message";
  if (status === 429)
    return "rate limited after the SDK's retries: lower the number of parallel workers, raise maxRetries, or try again later";
  if (status === 529) return "the provider is overloaded: try again later";
  if (status >= 500) return "the provider failed: try again later";
  return "see the provider's message";
}

/** A scripted model was asked for more replies than its script has. */
export class ModelScriptExhausted extends Data.TaggedError("ModelScriptExhausted")<{
  readonly calls: number;
  readonly lastMessage: string;
}> {
  override get message(): string {
    return `the scripted model has only ${this.calls} replies and was asked for another (last message: ${JSON.stringify(this.lastMessage.slice(0, 200))}); add replies to the script`;
  }
}

/**
 * A model config that cannot be used: a field with a wrong value, an unknown field, or an API key
 * variable that is not set. `field` names the config field(s) at fault (`"apiKeyEnv"`, `"price.inputPerMTok"`,
 * several separated by ", "), `problem` what is wrong with each, `fix` what to do.
 */
export class ModelConfigInvalid extends Data.TaggedError("ModelConfigInvalid")<{
  readonly field: string;
  readonly problem: string;
  readonly fix: string;
}> {
  override get message(): string {
    // An unset key variable is not a mistake in the config: say what is missing first.
    return this.field === "apiKeyEnv" && this.problem.includes("is not set")
      ? `no API key: ${this.problem}; ${this.fix}`
      : `the model config is invalid: ${this.problem}; ${this.fix}`;
  }
}
