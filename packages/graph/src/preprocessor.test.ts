/** C/C++ conditionals read as a compiler sees them: one branch of each, offsets kept. */
import { describe, expect, it } from "vitest";
import { conditionalReadings } from "./preprocessor.js";

const SPLIT_IF = [
  "void open_it(int fd) {",
  "    if (fd == -1)",
  "        state = open(path);",
  "#ifdef WIDECHAR",
  "    else if (fd == -2)",
  "        wopen(&state, path);",
  "#endif",
  "    else",
  "        state = fd;",
  "}",
  "",
].join("\n");

const kept = (reading: string) =>
  reading
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

describe("conditionalReadings", () => {
  it("keeps each conditional's first branch in one reading and its last in the other, at the same offsets", () => {
    const readings = conditionalReadings(SPLIT_IF)!;
    for (const reading of [readings.first, readings.last, readings.directives]) {
      expect(reading.length).toBe(SPLIT_IF.length);
      expect(reading.split("\n").length).toBe(SPLIT_IF.split("\n").length);
    }
    expect(kept(readings.first)).toEqual([
      "void open_it(int fd) {",
      "if (fd == -1)",
      "state = open(path);",
      "else if (fd == -2)",
      "wopen(&state, path);",
      "else",
      "state = fd;",
      "}",
    ]);
    // No `#else`: the last branch is empty, so the `#ifdef`'s code is dropped.
    expect(kept(readings.last)).toEqual([
      "void open_it(int fd) {",
      "if (fd == -1)",
      "state = open(path);",
      "else",
      "state = fd;",
      "}",
    ]);
    expect(kept(readings.directives)).toEqual(["#ifdef WIDECHAR", "#endif"]);
  });

  it("takes #elif chains and nesting branch by branch, and a directive's continuation lines with it", () => {
    const source = [
      "#if defined(A) && \\",
      "    defined(B)",
      "int a;",
      "#  ifdef C",
      "int c;",
      "#  else",
      "int not_c;",
      "#  endif",
      "#elif D",
      "int d;",
      "#else",
      "int other;",
      "#endif",
      "#define TWICE(x) \\",
      "    ((x) + (x))",
      "int always;",
    ].join("\n");
    const readings = conditionalReadings(source)!;
    expect(kept(readings.first)).toEqual(["int a;", "int c;", "#define TWICE(x) \\", "((x) + (x))", "int always;"]);
    expect(kept(readings.last)).toEqual(["int other;", "#define TWICE(x) \\", "((x) + (x))", "int always;"]);
    expect(kept(readings.directives)).toEqual([
      "#if defined(A) && \\",
      "defined(B)",
      "#  ifdef C",
      "#  else",
      "#  endif",
      "#elif D",
      "#else",
      "#endif",
      "#define TWICE(x) \\",
      "((x) + (x))",
    ]);
  });

  it("gives the source itself as both branch readings when it has no conditional", () => {
    const source = "int f(void) { return 1; }\r\n#include <stdio.h>\r\n";
    const readings = conditionalReadings(source)!;
    expect(readings.first).toBe(source);
    expect(readings.last).toBe(source);
    expect(readings.directives).toBe(`${" ".repeat(25)}\r\n#include <stdio.h>\r\n`);
  });

  it("has no reading of conditionals that do not balance", () => {
    expect(conditionalReadings("#if A\nint a;\n")).toBeUndefined();
    expect(conditionalReadings("int a;\n#endif\n")).toBeUndefined();
    expect(conditionalReadings("#if A\n#else\n#else\n#endif\n")).toBeUndefined();
  });
});
