/**
 * inline_variable on JavaScript/TypeScript, Java and Go: exact results, the refusals that keep
 * behaviour, and an oracle: each local of a real program inlined on its own, the program run by
 * node, `java Main.java` and `go run` before and after prints the same.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { goParse, javacParse } from "@graphplan/testkit";
import { executeStep } from "./execute.js";

beforeAll(() => loadGrammars(["javascript", "typescript", "java", "go"]));

const inline = (file: string, source: string, target: Record<string, unknown>): string =>
  executeStep({ template: "inline_variable", params: { target: { file, ...target } } } as never, {
    [file]: source,
  }).files.get(file)!;
const sexp = (query: string, index = 0) => ({ type: "sexp", query, capture: "d", index });

function runIn(
  file: string,
  source: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), "inline-"));
  try {
    writeFileSync(join(dir, file), source);
    return execFileSync(command, args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...env } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const JS = `function price(items, rate) {
  const base = items.length * 2;
  let label = "n=" + base;
  const scaled = base * rate + 1;
  const shape = { base };
  const first = items[0];
  return [label, scaled * 2, shape.base, first];
}
console.log(JSON.stringify(price([3, 4], 3)));
`;

const JAVA = `public class Main {
    static String total(int[] prices, int rate) {
        var base = prices.length * 2;
        var label = "n=" + base;
        var scaled = base * rate + 1;
        var tail = label.length() > 2 ? label.substring(2) : label;
        return label + ":" + scaled * 2 + ":" + tail;
    }

    public static void main(String[] args) {
        System.out.println(total(new int[] {3, 4}, 3));
    }
}
`;

const GO = `package main

import "fmt"

func total(prices []int, rate int) (int, string) {
	base := rate * 2
	var label = fmt.Sprint("n=", base)
	scaled := base*rate + 1
	return scaled * 2, label
}

func main() {
	a, b := total([]int{3, 4}, 3)
	fmt.Println(a, b)
}
`;

describe("inline_variable on JavaScript/TypeScript", () => {
  test("every use takes the value, parenthesized where it binds less tightly; a shorthand property gets its key", () => {
    const out = inline(
      "m.js",
      JS,
      sexp('(lexical_declaration (variable_declarator name: (identifier) @n (#eq? @n "base"))) @d'),
    );
    expect(out).toBe(
      JS.replace("  const base = items.length * 2;\n", "")
        .replace('"n=" + base', '"n=" + (items.length * 2)')
        .replace("base * rate", "(items.length * 2) * rate")
        .replace("{ base }", "{ base: items.length * 2 }"),
    );
  });

  test("each local of a real program, inlined on its own, leaves what node prints unchanged", () => {
    const expected = runIn("m.js", JS, "node", ["m.js"]);
    for (const name of ["base", "label", "scaled", "shape", "first"]) {
      const out = inline("m.js", JS, sexp(`(_ (variable_declarator name: (identifier) @n (#eq? @n "${name}"))) @d`));
      expect(out).not.toContain(`const ${name} =`);
      expect(runIn("m.js", out, "node", ["m.js"])).toBe(expected);
    }
  });

  test.each([
    [
      "a variable written again",
      "function f() {\n  let n = 0;\n  n += 1;\n  return n;\n}\n",
      "n",
      /n is written again at line 3/,
    ],
    [
      "a use in a nested function",
      "function f() {\n  const n = 1;\n  return () => n;\n}\n",
      "n",
      /used inside a nested arrow function \(line 3\)/,
    ],
    ["a call used twice", "function f() {\n  const n = g();\n  return n + n;\n}\n", "n", /would be evaluated 2 times/],
    [
      "a value whose input changes before the use",
      "function f(a) {\n  const n = a + 1;\n  a = 5;\n  return n;\n}\n",
      "n",
      /the value reads a, which is written at line 3 before n is used/,
    ],
    ["a module-level constant", "const n = 1;\nconsole.log(n);\n", "n", /declared at the top of the module/],
  ])("refuses %s", (_name, source, name, message) => {
    expect(() =>
      inline("m.js", source, sexp(`(_ (variable_declarator name: (identifier) @n (#eq? @n "${name}"))) @d`)),
    ).toThrow(message);
  });

  test("refuses a TypeScript annotation the value would lose", () => {
    expect(() =>
      inline(
        "m.ts",
        "function f(): number {\n  const n: number = 1;\n  return n;\n}\n",
        sexp("(lexical_declaration) @d"),
      ),
    ).toThrow(/n has a type annotation \(number\)/);
  });
});

describe("inline_variable on Java", () => {
  const java = (name: string) =>
    sexp(`(local_variable_declaration declarator: (variable_declarator name: (identifier) @n (#eq? @n "${name}"))) @d`);

  test("each var of a real program, inlined on its own, parses and leaves what the JDK prints unchanged", () => {
    const javaBin = process.env["JAVA_HOME"] ? join(process.env["JAVA_HOME"], "bin", "java") : "java";
    const expected = runIn("Main.java", JAVA, javaBin, ["Main.java"]);
    const outs = ["base", "label", "scaled"].map((name) => inline("Main.java", JAVA, java(name)));
    expect(outs[0]).toContain('var label = "n=" + (prices.length * 2);');
    expect(javacParse(outs)).toEqual([null, null, null]);
    for (const out of outs) expect(runIn("Main.java", out, javaBin, ["Main.java"])).toBe(expected);
  }, 120_000); // four JVM runs, each compiling Main.java: 30 s is not enough on a loaded 2-core machine

  test("refuses a declared type, which the assignment may convert to", () => {
    expect(() => inline("Main.java", JAVA.replace("var base", "long base"), java("base"))).toThrow(
      /base is declared as long: the assignment may convert the value/,
    );
  });

  test("inlines a call read once, and refuses one read several times", () => {
    expect(() => inline("Main.java", JAVA, java("tail"))).not.toThrow();
    expect(() =>
      inline(
        "Main.java",
        JAVA.replace("var tail = label.length() > 2", "var len = label.length();\n        var tail = len > 2").replace(
          "return label",
          "return len + label + len + label",
        ),
        java("len"),
      ),
    ).toThrow(/the value calls a function and would be evaluated 3 times/);
  });
});

describe("inline_variable on Go", () => {
  test("x := v and var x = v, each inlined on its own, parse and leave what go run prints unchanged", () => {
    const run = (source: string) => runIn("main.go", source, "go", ["run", "main.go"], { GO111MODULE: "off" });
    const expected = run(GO);
    const base = inline(
      "main.go",
      GO,
      sexp('(short_var_declaration left: (expression_list (identifier) @n (#eq? @n "base"))) @d'),
    );
    expect(base).toContain('var label = fmt.Sprint("n=", rate * 2)\n\tscaled := (rate * 2)*rate + 1\n');
    const label = inline("main.go", GO, sexp("(var_declaration) @d"));
    expect(label).toContain('return scaled * 2, fmt.Sprint("n=", base)\n');
    expect(goParse([base, label])).toEqual([null, null]);
    expect(run(base)).toBe(expected);
    expect(run(label)).toBe(expected);
  });

  test.each([
    [
      "a variable assigned again",
      "package main\n\nfunc f() int {\n\tn := 1\n\tn = 2\n\treturn n\n}\n",
      /n is written again at line 5/,
    ],
    [
      "a variable declared again by :=",
      "package main\n\nfunc f() (int, error) {\n\tn := 1\n\tn, err := g()\n\treturn n, err\n}\n",
      /n is written again at line 5/,
    ],
    [
      "a typed var",
      "package main\n\nfunc f() float64 {\n\tvar n float64 = 1\n\treturn n / 2\n}\n",
      /n is declared as float64: the value's own type may differ/,
    ],
    [
      "a receive used twice",
      "package main\n\nfunc f(c chan int) int {\n\tn := <-c\n\treturn n + n\n}\n",
      /would be evaluated 2 times/,
    ],
  ])("refuses %s", (_name, source, message) => {
    expect(() => inline("f.go", source, sexp("[(short_var_declaration) (var_declaration)] @d"))).toThrow(message);
  });
});
