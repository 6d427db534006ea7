/** The verifier judges C the way the executor does: conditionals that split code are not syntax errors, real errors are. */
import { buildGraph, loadGrammars } from "@graphplan/graph";
import { beforeAll, expect, it } from "vitest";
import { verifyPlan } from "./index.js";

beforeAll(() => loadGrammars(["c"]));

const SOURCE = "void gz_open(int fd) {\n    state_fd = fd > -1 ? fd : open(path);\n}\n";
const OLD = "    state_fd = fd > -1 ? fd : open(path);";
const SPLIT =
  "    if (fd == -1)\n        state_fd = open(path);\n#ifdef WIDECHAR\n    else if (fd == -2)\n        wopen(&state_fd, path);\n#endif\n    else\n        state_fd = fd;";

async function syntaxIssues(replace: string) {
  const files = new Map([["gzlib.c", SOURCE]]);
  const graph = await buildGraph([{ path: "gzlib.c", source: SOURCE }]);
  const result = await verifyPlan(
    [{ op: "replace_text", params: { file: "gzlib.c", find: OLD, replace } }],
    files,
    graph,
  );
  return result.issues.filter((issue) => issue.check === "syntax");
}

it("passes an if/else chain that #ifdef splits, which tree-sitter-c reads as errors as written", async () => {
  expect(await syntaxIssues(SPLIT)).toEqual([]);
});

it("reports a real syntax error inside the conditional branch", async () => {
  const issues = await syntaxIssues(SPLIT.replace("wopen(&state_fd, path);", "wopen(&state_fd path;"));
  expect(issues).toHaveLength(1);
  expect(issues[0]!.severity).toBe("error");
});
