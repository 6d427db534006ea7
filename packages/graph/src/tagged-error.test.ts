import { describe, expect, test } from "vitest";
import { errorGuard, TaggedError } from "./tagged-error.js";
import { GrammarNotLoaded, isGraphError } from "./parser.js";

class NotFound extends TaggedError("NotFound") {
  constructor(readonly file: string) {
    super(`${file} is missing: check the path`);
  }
}
class Other extends TaggedError("Other") {}

describe("TaggedError", () => {
  test("an instance is an Error of its class, tagged and named by its tag, with its own fields", () => {
    const error = new NotFound("a.py");
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(NotFound);
    expect(error._tag).toBe("NotFound");
    expect(error.name).toBe("NotFound");
    expect(error.file).toBe("a.py");
    expect(String(error)).toBe("NotFound: a.py is missing: check the path");
    expect(error.stack).toMatch(/^NotFound: a\.py is missing/);
  });

  test("the graph's own error is one", () => {
    const error = new GrammarNotLoaded("python");
    expect([error._tag, error.name]).toEqual(["GrammarNotLoaded", "GrammarNotLoaded"]);
    expect(isGraphError(error)).toBe(true);
  });
});

describe("errorGuard", () => {
  const isMine = errorGuard(NotFound);
  test("accepts instances of its classes only: not another tagged error, not a look-alike, not a bug", () => {
    expect(isMine(new NotFound("a.py"))).toBe(true);
    expect(isMine(new Other("x"))).toBe(false);
    expect(isMine({ _tag: "NotFound", message: "forged" })).toBe(false);
    expect(isMine(new TypeError("x is undefined"))).toBe(false);
    expect(isMine(undefined)).toBe(false);
  });

  test("narrows to the union, so a switch over _tag is checked for exhaustiveness", () => {
    const isEither = errorGuard(NotFound, Other);
    const describe = (e: unknown): string => {
      if (!isEither(e)) return "bug";
      switch (e._tag) {
        case "NotFound":
          return `missing ${e.file}`;
        case "Other":
          return "other";
        default: {
          const never: never = e;
          return never;
        }
      }
    };
    expect([describe(new NotFound("b.py")), describe(new Other("o")), describe(new Error("e"))]).toEqual([
      "missing b.py",
      "other",
      "bug",
    ]);
  });
});
