/** The recall benchmark's rules: which ctags tags count, and when the graph has found one. */
import { describe, expect, it } from "vitest";
import { ctagsLanguage, isDefinition, matches, namesOf, type CtagsTag } from "./recall-match.js";

const tag = (over: Partial<CtagsTag>): CtagsTag => ({
  name: "f",
  path: "a.c",
  language: "C",
  kind: "function",
  line: 3,
  pattern: "/^f$/",
  ...over,
});
const symbol = (name: string, start_line = 3, end_line = 5) => ({
  name,
  kind: "function",
  file: "a.c",
  start_line,
  end_line,
});

describe("recall matching", () => {
  it("finds a tag by name in the symbol's lines, with one line of slack before", () => {
    expect(matches(symbol("f"), tag({}))).toBe(true);
    expect(matches(symbol("f", 4), tag({}))).toBe(true);
    expect(matches(symbol("f", 5), tag({}))).toBe(false);
    expect(matches(symbol("g"), tag({}))).toBe(false);
  });

  it("answers to the last part of a qualified name, both sides of a Rust impl, a macro's name, operators without spaces", () => {
    expect(namesOf(symbol("Matrix<T>::operator=="))).toContain("operator==");
    expect(matches(symbol("Matrix<T>::operator=="), tag({ name: "operator ==" }))).toBe(true);
    expect(namesOf(symbol("Sink for &'a mut S"))).toEqual(expect.arrayContaining(["Sink", "S"]));
    expect(matches(symbol("TEST_IMPL(tcp_ping)"), tag({ name: "TEST_IMPL" }))).toBe(true);
  });

  it("counts headers under the repository's language, .tsx as TSX", () => {
    expect(ctagsLanguage(tag({ path: "x.h", language: "C++" }), false)).toBe("c");
    expect(ctagsLanguage(tag({ path: "x.h", language: "C++" }), true)).toBe("cpp");
    expect(ctagsLanguage(tag({ path: "x.tsx", language: "TypeScript" }), false)).toBe("tsx");
  });

  it("leaves out ctags' object-literal classes and import-list aliases", () => {
    expect(isDefinition("javascript", tag({ kind: "class", pattern: "/^var req = { method: 'GET' };$/" }))).toBe(false);
    expect(isDefinition("javascript", tag({ kind: "class", pattern: "/^class View {$/" }))).toBe(true);
    expect(
      isDefinition("typescript", tag({ name: "Id", kind: "alias", pattern: "/^import { type Id } from './x';$/" })),
    ).toBe(false);
    expect(
      isDefinition("typescript", tag({ name: "Id", kind: "alias", pattern: "/^export type Id = string;$/" })),
    ).toBe(true);
  });
});
