/**
 * rename_across_files on Go: a package-level name renamed in the files of its package and in other
 * packages' `p.Name`. Exact results, refusals, and an oracle: a real module run by `go run .` before
 * and after each rename prints the same, and renaming back gives the original bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { gofmt, goParse } from "@graphplan/testkit";
import { executeStep } from "./execute.js";

beforeAll(() => loadGrammars(["go"]));

const MODULE: Record<string, string> = {
  "go.mod": "module example.com/shop\n\ngo 1.19\n",
  "main.go": `package main

import (
	"fmt"

	"example.com/shop/money"
)

func main() {
	total := money.Sum(1, 2, 3)
	var a money.Amount = 5
	fmt.Println(total, a, money.Double(a))
}
`,
  "money/money.go": `package money

type Amount int

func Sum(all ...Amount) Amount {
	s := Amount(0)
	for _, a := range all {
		s += a
	}
	return round(s)
}
`,
  "money/round.go": `package money

func round(a Amount) Amount { return a }

// Double has a local named like the package's Sum: it is not the function.
func Double(a Amount) Amount {
	Sum := a * 2
	return round(Sum)
}
`,
};
const GO_FILES = Object.keys(MODULE).filter((p) => p.endsWith(".go"));

function rename(
  files: Record<string, string>,
  file: string,
  name: string,
  newName: string,
  importers: string[],
): Record<string, string> {
  const result = executeStep(
    { op: "rename_across_files", params: { file, name, new_name: newName, importers } } as never,
    files,
  );
  return { ...files, ...Object.fromEntries(result.files) };
}

function goRun(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "rename-go-package-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return execFileSync("go", ["run", "."], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off", GOCACHE: join(tmpdir(), "graphplan-go-cache") },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("rename_across_files on Go", () => {
  test("an exported function: its declaration, and p.Name in another package; a local of the same name is left alone", () => {
    const out = rename(MODULE, "money/money.go", "Sum", "Total", ["main.go", "money/round.go"]);
    expect(out["money/money.go"]).toContain("func Total(all ...Amount) Amount {");
    expect(out["main.go"]).toContain("total := money.Total(1, 2, 3)");
    expect(out["money/round.go"]).toBe(MODULE["money/round.go"]);
  });

  test("each package-level name, renamed and renamed back: go run prints the same, and the bytes come back", () => {
    const expected = goRun(MODULE);
    const cases: [string, string, string, string[]][] = [
      ["money/money.go", "Sum", "Total", ["main.go", "money/round.go"]],
      ["money/round.go", "round", "roundDown", ["money/money.go"]],
      ["money/money.go", "Amount", "Cents", ["main.go", "money/round.go"]],
      ["money/round.go", "Double", "Twice", ["main.go", "money/money.go"]],
    ];
    for (const [file, name, newName, importers] of cases) {
      const renamed = rename(MODULE, file, name, newName, importers);
      expect(goParse(GO_FILES.map((p) => renamed[p]!))).toEqual(GO_FILES.map(() => null));
      expect(goRun(renamed)).toBe(expected);
      expect(rename(renamed, file, newName, name, importers)).toEqual(MODULE);
    }
  });

  test.each([
    [
      "a name the package declares",
      "money/money.go",
      "Sum",
      "Double",
      ["main.go", "money/round.go"],
      /money\/round.go: .*Double is already declared at package level/,
    ],
    [
      "unexporting a name another package uses",
      "money/money.go",
      "Sum",
      "sum",
      ["main.go", "money/round.go"],
      /renaming to a lower-case name unexports Sum, which this file of another package uses/,
    ],
    [
      "a use a local of the new name would capture",
      "money/round.go",
      "round",
      "s",
      ["money/money.go"],
      /this use of round would name another s/,
    ],
    [
      "a package file left out of importers",
      "money/money.go",
      "Sum",
      "Total",
      ["main.go"],
      /the package's files money\/round.go are not in "importers": list every file of the package/,
    ],
    [
      "a file of another package that does not use the name",
      "money/round.go",
      "round",
      "roundDown",
      ["money/money.go", "main.go"],
      /main.go: the file neither is in round's package nor uses money.round/,
    ],
    [
      "a name the file does not declare",
      "money/round.go",
      "Sum",
      "Total",
      ["main.go", "money/money.go"],
      /the file does not declare it at package level/,
    ],
  ])("refuses %s", (_name, file, name, newName, importers, message) => {
    expect(() => rename(MODULE, file, name, newName, importers)).toThrow(message);
  });

  test("a name in a var or const block: the run of specs is realigned as gofmt aligns it", () => {
    const errs =
      'package money\n\nimport "errors"\n\nvar (\n\tErrEmpty = errors.New("empty")\n\tErrNeg   = errors.New("negative")\n\n\tlimit = 3\n)\n\nconst (\n\tA = iota // first\n\tBee\n)\n';
    const files = { ...MODULE, "money/errors.go": errs };
    const importers = ["money/money.go", "money/round.go"];
    const longer = rename(files, "money/errors.go", "ErrNeg", "ErrNegativeAmount", importers)["money/errors.go"]!;
    expect(longer).toContain(
      'var (\n\tErrEmpty          = errors.New("empty")\n\tErrNegativeAmount = errors.New("negative")\n\n\tlimit = 3\n)',
    );
    expect(gofmt(longer)).toBe(longer);
    const shorter = rename(files, "money/errors.go", "ErrEmpty", "ErrE", importers)["money/errors.go"]!;
    expect(gofmt(shorter)).toBe(shorter);
    const commented = rename(files, "money/errors.go", "A", "Alpha", importers)["money/errors.go"]!;
    expect(commented).toContain("\tAlpha = iota // first\n");
    expect(gofmt(commented)).toBe(commented);
    // A trailing comment moves with its value (found on encoding/csv's errors).
    const trailing = errs.replace('ErrEmpty = errors.New("empty")', 'ErrEmpty = errors.New("empty") // Deprecated.');
    const moved = rename(
      { ...files, "money/errors.go": trailing },
      "money/errors.go",
      "ErrNeg",
      "ErrNegativeAmount",
      importers,
    )["money/errors.go"]!;
    expect(moved).toContain(
      '\tErrEmpty          = errors.New("empty") // Deprecated.\n\tErrNegativeAmount = errors.New("negative")\n',
    );
    expect(gofmt(moved)).toBe(moved);
  });

  test("refuses a name whose new spelling would shadow a predeclared name a file uses", () => {
    const files = { ...MODULE, "money/size.go": "package money\n\nfunc size(all []Amount) int { return len(all) }\n" };
    expect(() => rename(files, "money/round.go", "round", "len", ["money/money.go", "money/size.go"])).toThrow(
      /money\/size.go: the len used here \(Go's predeclared len\) would name the renamed round instead/,
    );
  });
});
