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
  override get message(): string {
    const status = this.status === undefined ? "no response" : `HTTP ${this.status}`;
    return `${this.provider} model ${this.model} failed (${status}): ${this.detail}; check the API key, the base URL and the model name`;
  }
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
    return `the model config is invalid: ${this.problem}; ${this.fix}`;
  }
}
