/**
 * rename_identifier on Go: a name local to a function, renamed by Go's scoping rules. Each case's
 * result is the exact text expected and gofmt leaves it unchanged; the oracle test builds and runs
 * real programs with the Go toolchain before and after renaming every local name in turn: the
 * output is the same, and renaming back gives the original bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { analyzeGo } from "@graphplan/scope";
import { gofmt } from "@graphplan/testkit";
import { executeStep } from "./execute.js";

beforeAll(() => loadGrammars(["go"]));

const rename = (source: string, name: string, newName: string, scope?: string): string =>
  executeStep(
    {
      op: "rename_identifier",
      params: {
        file: "m.go",
        name,
        new_name: newName,
        ...(scope ? { scope: { kind: "function", name: scope, file: "m.go" } } : {}),
      },
    },
    { "m.go": source },
  ).files.get("m.go")!;

const SHADOW = `package main

import "fmt"

func sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	if total > 10 {
		total := total / 2
		return total
	}
	return total
}

func main() {
	fmt.Println(sum([]int{1, 2, 3}))
}
`;

describe("rename_identifier on Go", () => {
  test("renames the binding and its uses, not an inner variable of the same name (whose initializer reads the outer one)", () => {
    const out = rename(SHADOW, "total", "acc", "sum");
    expect(out).toBe(
      SHADOW.replace("\ttotal := 0\n", "\tacc := 0\n")
        .replace("\t\ttotal += x\n", "\t\tacc += x\n")
        .replace("if total > 10", "if acc > 10")
        .replace("\t\ttotal := total / 2\n", "\t\ttotal := acc / 2\n")
        .replace("\treturn total\n}\n\nfunc main", "\treturn acc\n}\n\nfunc main"),
    );
    expect(gofmt(out)).toBe(out);
  });

  test("a parameter, and a range variable", () => {
    expect(rename(SHADOW, "xs", "values", "sum")).toContain(
      "func sum(values []int) int {\n\ttotal := 0\n\tfor _, x := range values {",
    );
    expect(rename(SHADOW, "x", "v", "sum")).toContain("\tfor _, v := range xs {\n\t\ttotal += v\n");
  });

  test.each([
    ["a name declared in the same block", "total", "xs", /xs is already declared in function sum/],
    [
      "a use that an inner block's declaration would capture",
      "xs",
      "total",
      /total is already declared in function sum/,
    ],
    ["a predeclared name used in the scope", "total", "len", null],
    ["a package used in the scope", "x", "fmt", null],
  ])("refuses %s", (_name, name, newName, message) => {
    const source = SHADOW.replace("\t\ttotal += x\n", "\t\ttotal += x + len(xs)\n\t\tfmt.Print()\n");
    expect(() => rename(source, name, newName, "sum")).toThrow(message ?? /would be shadowed by the renamed/);
  });

  test("refuses a capture by an inner declaration, a package-level name, and a composite literal key", () => {
    const capture =
      "package main\n\nfunc f() int {\n\ta := 1\n\tif true {\n\t\tb := 2\n\t\treturn a + b\n\t}\n\treturn a\n}\n";
    expect(() => rename(capture, "a", "b", "f")).toThrow(/would name another b \(declared in an inner block\) instead/);
    expect(() => rename(SHADOW, "sum", "total2")).toThrow(/declared at package level/);
    const keyed = "package main\n\ntype P struct{ x int }\n\nfunc f() P {\n\tx := 1\n\treturn P{x: x}\n}\n";
    expect(() => rename(keyed, "x", "y", "f")).toThrow(/key of a composite literal/);
  });
});

/** Programs that print what they compute; every local name of each is renamed in turn. */
const PROGRAMS = [
  SHADOW,
  `package main

import (
	"fmt"
	"strings"
)

type counter struct{ n int }

func (c *counter) add(word string) (count int, err error) {
	for i, r := range word {
		if r == 'a' {
			c.n += i
		}
	}
	count = c.n
	return
}

func main() {
	c := &counter{}
	words := strings.Fields("banana cake papaya")
	for _, w := range words {
		n, err := c.add(w)
		if err != nil {
			return
		}
		fmt.Println(w, n)
	}
	label := func(prefix string) string { return prefix + ":" + fmt.Sprint(c.n) }
	fmt.Println(label("total"))
	switch v := any(len(words)).(type) {
	case int:
		fmt.Println("int", v)
	}
}
`,
];

describe("rename_identifier on Go, judged by the Go toolchain", () => {
  const dir = mkdtempSync(join(tmpdir(), "rename-go-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const output = (source: string): string => {
    writeFileSync(join(dir, "main.go"), source);
    return execFileSync("go", ["run", "main.go"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: "-mod=mod", GO111MODULE: "off" },
    });
  };

  test.each(PROGRAMS.map((p, i) => [i, p]))(
    "program %i: every local name renamed gives the same output, and renaming back the same bytes",
    (_i, program) => {
      const before = output(program);
      const locals = withTree(program, "go", (tree) => {
        const analysis = analyzeGo(tree);
        return analysis.scopes
          .filter((s) => s.kind !== "package")
          .flatMap((s) => [...s.bindings.values()].map((b) => ({ name: b.name, fn: enclosingFunction(b.node) })));
      });
      expect(locals.length).toBeGreaterThan(3);
      for (const { name, fn } of locals) {
        const renamed = rename(program, name, `${name}Renamed`, fn);
        expect(output(renamed), `${name} in ${fn}`).toBe(before);
        expect(rename(renamed, `${name}Renamed`, name, fn)).toBe(program);
      }
    },
    120_000,
  );
});

function enclosingFunction(node: import("@graphplan/graph").Node): string | undefined {
  for (let n: import("@graphplan/graph").Node | null = node; n; n = n.parent) {
    if (n.type === "function_declaration" || n.type === "method_declaration") return n.childForFieldName("name")?.text;
  }
  return undefined;
}
