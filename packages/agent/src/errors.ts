/** Tagged errors of the agent. Each message says what was wrong and what to do about it. */
import * as Data from "effect/Data";

/** A configuration file that cannot be read or parsed as YAML. */
export class ConfigUnreadable extends Data.TaggedError("ConfigUnreadable")<{
  readonly path: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `cannot read the agent config ${this.path}: ${this.detail}; pass a readable YAML file with --config`;
  }
}

/** A configuration that does not match `AgentConfigSchema` (or uses a template variable its prompt does not have). */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{
  readonly path: string;
  readonly problems: readonly string[];
}> {
  override get message(): string {
    return `the agent config ${this.path} is invalid: ${this.problems.join("; ")}; see config/default.yaml for every key`;
  }
}

/**
 * The run hit `limits.step_limit` (model calls) or `limits.cost_limit` (dollars) before the next
 * model call. The run ends with exit status `LimitsExceeded`.
 */
export class LimitsExceeded extends Data.TaggedError("LimitsExceeded")<{
  readonly limit: "step_limit" | "cost_limit" | "max_format_errors" | "wall_time_seconds";
  readonly max: number;
  readonly modelCalls: number;
  readonly costUsd: number;
}> {
  override get message(): string {
    if (this.limit === "wall_time_seconds")
      return `the run reached limits.wall_time_seconds (${this.max} s) after ${this.modelCalls} model calls; raise it in the config to let the agent go on`;
    if (this.limit === "max_format_errors")
      return `the model broke the reply format ${this.max} times in a row (limits.max_format_errors); its replies are not usable`;
    return this.limit === "step_limit"
      ? `the run reached limits.step_limit (${this.max} model calls); raise it in the config to let the agent go on`
      : `the run reached limits.cost_limit ($${this.max}; spent $${this.costUsd.toFixed(4)} in ${this.modelCalls} model calls); raise it in the config to let the agent go on`;
  }
}

/** The repository given to `graphplan run` is not the top level of a git work tree with a commit. */
export class RepoNotGitWorkTree extends Data.TaggedError("RepoNotGitWorkTree")<{
  readonly repo: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `${this.repo} is not usable as the repository: ${this.detail}`;
  }
}

/** The repository has uncommitted changes and `--allow-dirty` was not given. */
export class RepoDirty extends Data.TaggedError("RepoDirty")<{
  readonly repo: string;
  readonly files: readonly string[];
}> {
  override get message(): string {
    const shown =
      this.files.slice(0, 5).join(", ") + (this.files.length > 5 ? `, ... (${this.files.length} in all)` : "");
    return `${this.repo} has uncommitted changes (${shown}); commit or stash them first, or pass --allow-dirty (the patch will then include them)`;
  }
}

/** The command line named no usable task, provider, sandbox or file. */
export class RunInputInvalid extends Data.TaggedError("RunInputInvalid")<{
  readonly detail: string;
}> {
  override get message(): string {
    return this.detail;
  }
}
