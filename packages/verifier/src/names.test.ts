import { beforeAll, describe, expect, it } from "vitest";
import { buildGraph, loadGrammars } from "@graphplan/graph";
import { NameCheck } from "./index.js";

beforeAll(() => loadGrammars(["go", "python", "ruby"]));

describe("NameCheck: the references check on whole files", () => {
  it("resolves a Go file against its package's other files, and reports a changed text's new name", async () => {
    const files = new Map([
      ["p/a.go", "package p\n\nfunc A() int { return b() + limit }\n"],
      ["p/b.go", 'package p\n\nconst limit = 3\n\nfunc b() int { return len("x") }\n'],
      ["m.py", "import os\n\nprint(os.sep, missing)\n"],
      ["r.rb", "puts 1\n"],
    ]);
    const check = new NameCheck(files, await buildGraph([...files].map(([path, source]) => ({ path, source }))));
    try {
      expect(check.unresolved("p/a.go")).toEqual([]);
      expect(check.unresolved("p/a.go", "package p\n\nfunc A() int { return b() + limt }\n")).toEqual([
        { name: "limt", line: 3 },
      ]);
      expect(check.unresolved("m.py")).toEqual([{ name: "missing", line: 3 }]);
      expect(NameCheck.supports("ruby")).toBe(false);
      expect(check.unresolved("r.rb")).toBeUndefined();
      expect(check.unresolved("absent.go")).toBeUndefined();
    } finally {
      check.dispose();
    }
  });
});
