import { describe, expect, it } from "vitest";
import { buildGraph, graphView, GraphSchema } from "./index.js";
import { markdownHeadings, rstHeadings } from "./documents.js";

describe("documents in the graph", () => {
  it("lists data files' keys and TOML sections, Markdown and reST headings, and other text by line count", async () => {
    const graph = await buildGraph(
      [
        { path: "app.py", source: "def main():\n    pass\n" },
        {
          path: "pyproject.toml",
          source:
            "[project]\nname = 'shop'\n\n[tool.pytest.ini_options]\naddopts = '-ra'\n\n[[tool.mypy.overrides]]\nmodule = 'a'\n",
        },
        {
          path: ".github/workflows/ci.yml",
          source: "name: ci\non:\n  push: {}\njobs:\n  test:\n    steps:\n      - run: pytest\n",
        },
        { path: "package.json", source: '{\n  "name": "shop",\n  "scripts": {"test": "vitest"}\n}\n' },
        { path: "README.md", source: "# Shop\n\nIntro\n\n```sh\n# not a heading\n```\n\nUsage\n-----\n\n## API ##\n" },
        {
          path: "docs/index.rst",
          source: "=====\nShop\n=====\n\nInstall\n-------\n\ntext\n\nFrom source\n~~~~~~~~~~~\n",
        },
        { path: "CHANGES.txt", source: "one\ntwo\n" },
      ],
      { documents: true },
    );
    expect(graph.errors).toEqual([]);
    expect(GraphSchema.parse(graph)).toEqual(graph);
    expect(graphView(graph)).toBe(
      [
        "FILE: .github/workflows/ci.yml (yaml, 7 lines)",
        "  KEY: name [line 1]",
        "  KEY: on [line 2]",
        "  KEY: on.push [line 3]",
        "  KEY: jobs [line 4]",
        "  KEY: jobs.test [line 5]",
        "FILE: CHANGES.txt (text, 2 lines)",
        "FILE: README.md (markdown, 12 lines)",
        "  HEADING: # Shop [line 1]",
        "  HEADING: ## Usage [line 9]",
        "  HEADING: ## API [line 12]",
        "FILE: app.py",
        "  FUNCTION: main (lines 1-2)",
        "FILE: docs/index.rst (rst, 11 lines)",
        "  HEADING: # Shop [line 2]",
        "  HEADING: ## Install [line 5]",
        "  HEADING: ### From source [line 10]",
        "FILE: package.json (json, 4 lines)",
        "  KEY: name [line 2]",
        "  KEY: scripts [line 3]",
        "  KEY: scripts.test [line 3]",
        "FILE: pyproject.toml (toml, 8 lines)",
        "  SECTION: [project] [line 1]",
        "  KEY: project.name [line 2]",
        "  SECTION: [tool.pytest.ini_options] [line 4]",
        "  SECTION: [tool.mypy.overrides[]] [line 7]",
      ].join("\n"),
    );
  });

  it("keeps non-code files as errors unless documents are asked for", async () => {
    const graph = await buildGraph([{ path: "notes.md", source: "# x\n" }]);
    expect(graph.documents).toBeUndefined();
    expect(graph.errors[0]).toMatch(/^Unsupported file type: notes\.md/);
  });

  it("bounds a document's outline and says how much it left out", async () => {
    const source = Array.from({ length: 100 }, (_, i) => `# H${i}\n`).join("");
    const graph = await buildGraph([{ path: "long.md", source }], { documents: true });
    expect(graph.documents![0]!.outline).toHaveLength(40);
    expect(graph.documents![0]!.omitted).toBe(60);
    expect(graphView(graph).split("\n").at(-1)).toBe("  ... 60 more");
  });

  it("reads setext headings and skips thematic breaks and list items", () => {
    expect(markdownHeadings("Title\n=====\n\n- item\n---\n\ntext\n\n***\n").map((h) => [h.name, h.level])).toEqual([
      ["Title", 1],
    ]);
    expect(rstHeadings("Short\n==\n\nTitle\n=====\n").map((h) => h.name)).toEqual(["Title"]);
  });
});
