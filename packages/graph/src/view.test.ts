import { describe, expect, it } from "vitest";
import { buildGraph, graphView } from "./index.js";

describe("graphView", () => {
  it("prints the design's view: files in path order, imports and symbols by line, then errors", async () => {
    const graph = await buildGraph([
      { path: "src/b.py", source: "def late():\n    pass\n\nimport os\n" },
      { path: "notes.md", source: "# not code" },
      {
        path: "src/a.py",
        source:
          "from marshmallow.utils import missing\nimport json as j\n\n\nclass BaseSchema:\n    def __init__(self):\n        pass\n",
      },
    ]);
    expect(graphView(graph)).toBe(
      [
        "FILE: src/a.py",
        "  IMPORT: from marshmallow.utils import missing [line 1]",
        "  IMPORT: import json [line 2]",
        "  CLASS: BaseSchema (lines 5-7)",
        "  FUNCTION: __init__ (lines 6-7)",
        "FILE: src/b.py",
        "  FUNCTION: late (lines 1-2)",
        "  IMPORT: import os [line 4]",
        "ERROR: Unsupported file type: notes.md (GraphPlan reads .py .pyi .js .jsx .mjs .cjs .ts .mts .cts .tsx .java .go .rs .rb .php .c .h .cpp .cxx .cc .hpp .hxx .hh .sh .bash .css .html .htm)",
      ].join("\n"),
    );
  });

  it("lists a file that has only control flow", async () => {
    const graph = await buildGraph([{ path: "script.py", source: "if True:\n    print(1)\n" }]);
    expect(graphView(graph)).toBe("FILE: script.py");
  });
});
