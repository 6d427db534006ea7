/** The tagged errors of rename: in a file of their own so that every rename module can throw them. */
import { TaggedError } from "@graphplan/graph";

/** The new name is already bound where the renamed binding lives, or would capture / be captured. */
export class NameCollision extends TaggedError("NameCollision") {
  constructor(
    readonly file: string,
    readonly symbol: string,
    readonly newName: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`Cannot rename ${symbol} to ${newName} in ${file}: ${detail} (line ${line}). Choose another name.`);
  }
}

/** The name to rename is not bound where the step says (or is bound in several scopes and no scope was given). */
export class BindingNotFound extends TaggedError("BindingNotFound") {
  constructor(
    readonly file: string,
    readonly symbol: string,
    readonly detail: string,
    /** Where the name is bound: "function f (line 3)", ... */
    readonly candidates: readonly string[],
  ) {
    super(
      `${symbol} in ${file}: ${detail}.${candidates.length ? ` It is bound in: ${candidates.join("; ")}. Pass "scope" (a locator of that function or class) to choose.` : ""}`,
    );
  }
}
