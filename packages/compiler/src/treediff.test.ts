import { loadGrammars, withTree } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { applyChanges, diffTrees, type Change } from "./treediff.js";

beforeAll(() => loadGrammars(["python"]));

function diff(pre: string, post: string): Change[] {
  return withTree(pre, "python", (a) =>
    withTree(post, "python", (b) => diffTrees(a.rootNode, pre, b.rootNode, post, "python")),
  );
}

const describeChange = (c: Change, pre: string, post: string) =>
  c.kind === "replace"
    ? `replace ${c.pre.type}: ${pre.slice(c.preRange.start, c.preRange.end)} -> ${post.slice(c.postRange.start, c.postRange.end)}`
    : `splice in ${c.parent.type} -[${c.removed.map((r) => r.type).join(",")}] +[${c.added.map((a) => a.type).join(",")}]`;

const BODY = Array.from({ length: 8 }, (_, i) => `    log(a, b, "step ${i}", verbose=True)\n`).join("");
const PRE = `import os\n\n\ndef f(a, b):\n${BODY}    x = a + b\n    return x\n\n\ndef g():\n    pass\n`;

describe("the structural diff", () => {
  it("finds the smallest changed node", () => {
    const post = PRE.replace("x = a + b", "x = a - b");
    const changes = diff(PRE, post);
    expect(changes.map((c) => describeChange(c, PRE, post))).toEqual(["replace binary_operator: a + b -> a - b"]);
    expect(applyChanges(PRE, post, changes)).toBe(post);
  });

  it("says added and removed siblings as splices of their parent, not as a replaced parent", () => {
    const post = PRE.replace("    return x\n", "    y = x * 2\n    return y\n").replace(
      "\n\n\ndef g():\n    pass\n",
      "\n",
    );
    const changes = diff(PRE, post);
    expect(changes.map((c) => describeChange(c, PRE, post))).toEqual([
      "splice in block -[] +[expression_statement]",
      "replace identifier: x -> y",
      "splice in module -[function_definition] +[]",
    ]);
    expect(applyChanges(PRE, post, changes)).toBe(post);
  });

  it("pairs definitions by name, so a new function before an old one is an insertion", () => {
    const post = PRE.replace("def g():", "def h():\n    return 1\n\n\ndef g():");
    const changes = diff(PRE, post);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.kind).toBe("splice");
    expect(applyChanges(PRE, post, changes)).toBe(post);
  });

  it("keeps whitespace-only changes between statements as their own splice", () => {
    const post = PRE.replace("import os\n\n\n", "import os\n\n\n\n");
    const changes = diff(PRE, post);
    expect(changes.map((c) => describeChange(c, PRE, post))).toEqual(["splice in module -[] +[]"]);
    expect(applyChanges(PRE, post, changes)).toBe(post);
  });

  it("replaces a node whole when its parts would cost more steps than its text", () => {
    const post = PRE.replace("x = a + b", "y = c * d").replace("def g():\n    pass", "def g():\n    return 1");
    const changes = diff(PRE, post);
    expect(changes.map((c) => describeChange(c, PRE, post))).toEqual([
      "replace expression_statement: x = a + b -> y = c * d",
      "replace block: pass -> return 1",
    ]);
    expect(applyChanges(PRE, post, changes)).toBe(post);
  });

  it("reproduces the post-image for edits anywhere (a randomized round trip)", () => {
    const lines = PRE.split("\n");
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let k = 0; k < 40; k++) {
      const copy = [...lines];
      const at = rand(copy.length);
      const op = rand(3);
      if (op === 0) copy.splice(at, 1);
      else if (op === 1) copy.splice(at, 0, `    z${k} = ${k}`);
      else copy[at] = (copy[at] ?? "").replace(/[a-z]/, "q");
      const post = copy.join("\n");
      expect(applyChanges(PRE, post, diff(PRE, post))).toBe(post);
    }
  });
});
