/**
 * The formal operators (the path a plan takes through parsePlan's catalog) on shell scripts, CSS and
 * HTML: the tree operators of AST surgery work on their nodes like on any code.
 */
import { execFileSync } from "node:child_process";
import { loadGrammars } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { runFormalPlan } from "./execute.js";
import { parsePlanOrThrow } from "./testing.js";

beforeAll(() => loadGrammars(["bash", "css", "html"]));

const SCRIPT = "#!/bin/sh\nbuild() {\n  make\n}\n\nclean() {\n  rm -rf out\n}\n";
const STYLE = ".a {\n  color: red;\n}\n\n.b {\n  color: blue;\n}\n";
const PAGE = '<main>\n  <div id="one">1</div>\n  <div id="two">2</div>\n</main>\n';
const FILES = new Map([
  ["build.sh", SCRIPT],
  ["site.css", STYLE],
  ["index.html", PAGE],
]);

function run(plan: unknown[]): Map<string, string> {
  const result = runFormalPlan(parsePlanOrThrow(JSON.parse(JSON.stringify(plan))), FILES);
  if (!result.ok) throw new Error(result.error.message);
  return new Map(result.files);
}

describe("AST surgery on shell scripts, CSS and HTML", () => {
  it("deletes a shell function and swaps two CSS rule sets, by name", () => {
    const files = run([
      { op: "delete_node", params: { locator: { kind: "function", name: "clean", file: "build.sh" } } },
      {
        op: "swap_nodes",
        params: {
          first: { kind: "rule", name: ".a", file: "site.css" },
          second: { kind: "rule", name: ".b", file: "site.css" },
        },
      },
    ]);
    expect(files.get("build.sh")).toBe("#!/bin/sh\nbuild() {\n  make\n}\n");
    execFileSync("bash", ["-n"], { input: files.get("build.sh") });
    expect(files.get("site.css")).toBe(".b {\n  color: blue;\n}\n\n.a {\n  color: red;\n}\n");
  });

  it("moves an HTML element by id after another", () => {
    const files = run([
      {
        op: "move_node",
        params: {
          source: { kind: "element", name: "one", file: "index.html" },
          target: { kind: "element", name: "two", file: "index.html" },
          position: "after",
        },
      },
    ]);
    expect(files.get("index.html")).toBe('<main>\n  <div id="two">2</div>\n  <div id="one">1</div>\n</main>\n');
  });
});
