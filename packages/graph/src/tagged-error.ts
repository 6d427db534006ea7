/**
 * The one base of the errors the pure packages (graph … catalog, compiler) throw or return.
 *
 * A tagged error is an `Error` whose `_tag` is a string literal — what a `switch` over an error union
 * narrows on, exhaustively — and whose `name` is that tag, so a stack trace or `String(error)` names it.
 * Each package declares its errors as `class X extends TaggedError("X") { ... }` and exports their union
 * with a guard made by {@link errorGuard}; the runtime's Effect errors (`Data.TaggedError`) carry one of
 * these as their `cause`. The pure packages do not depend on Effect.
 */

/** An error of the pure packages: an `Error` with a literal `_tag`. */
export interface Tagged<Tag extends string = string> extends Error {
  readonly _tag: Tag;
}

/** A class of tagged errors, whatever its constructor takes. */
export type TaggedClass = abstract new (...args: never[]) => Tagged;

/**
 * The base class of the tagged error `tag`: `class LocatorNotFound extends TaggedError("LocatorNotFound") {
 * constructor(readonly file: string) { super(`... what to fix ...`) } }`. Its instances' type is spelled out, not
 * `Tagged<Tag>`, so the declarations other packages emit for their error classes name nothing of this module.
 */
export function TaggedError<const Tag extends string>(
  tag: Tag,
): new (
  message: string,
  options?: ErrorOptions,
) => Error & { readonly _tag: Tag } {
  return class extends Error {
    readonly _tag: Tag = tag;
    constructor(message: string, options?: ErrorOptions) {
      super(message, options);
      this.name = tag;
    }
  };
}

/**
 * The guard of an error union, from its classes: `errorGuard(A, B)` is `(e: unknown) => e is A | B`. A
 * package exports it beside the union's type (`isLocatorError`, `isRunError`, `isStepError`) so callers
 * tell its errors from a bug before they switch over `_tag`.
 */
export function errorGuard<const Classes extends readonly TaggedClass[]>(
  ...classes: Classes
): (error: unknown) => error is InstanceType<Classes[number]> {
  return (error: unknown): error is InstanceType<Classes[number]> => classes.some((c) => error instanceof c);
}
