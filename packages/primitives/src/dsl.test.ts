import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { evaluateCondition, substitute } from "./dsl.js";
import { runPlan } from "./run.js";
import { InvalidCondition, UnresolvedVariable } from "./errors.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python", "php"]));

describe("substitute", () => {
  const vars = { file: "q.py", n: 3, found: { count: 2, nodes: [{ name: "a" }] } };

  test("a whole-string reference takes the value, embedded ones its text", () => {
    expect(substitute("$n", vars)).toBe(3);
    expect(substitute("$found", vars)).toEqual(vars.found);
    expect(substitute("n=$n in $file", vars)).toBe("n=3 in q.py");
    expect(substitute({ a: ["$found.nodes.0.name", "$found.count"] }, vars)).toEqual({ a: ["a", 2] });
  });

  test("unknown names stay as text (PHP variables survive); $$ writes $", () => {
    expect(substitute("$this->x = $n;", vars)).toBe("$this->x = 3;");
    expect(substitute("cost: $$5", vars)).toBe("cost: $5");
  });

  test("values are not rescanned", () => {
    expect(substitute("$a", { a: "$b", b: "no" })).toBe("$b");
  });

  test("a missing field of a known variable is UnresolvedVariable", () => {
    expect(() => substitute("$found.size", vars)).toThrow(UnresolvedVariable);
  });
});

describe("evaluateCondition", () => {
  const vars = { body: { count: 2 }, name: "x", flag: false, items: [1] };

  test.each([
    ["$body.count > 0", true],
    ["$body.count >= 3", false],
    ["$body.count == 2", true],
    ["$body.count != '2'", false],
    ["$name == 'x'", true],
    ['$name != "x"', false],
    ["$name < 'y'", true],
    ["$flag", false],
    ["!$flag", true],
    ["$flag == false", true],
    ["$items", true],
    ["$flag || $body.count > 1", true],
    ["$body.count > 1 && $flag", false],
    ["$name == 'a||b' || $name == 'x'", true],
  ])("%s is %s", (condition, expected) => {
    expect(evaluateCondition(condition, vars)).toBe(expected);
  });

  test("bad conditions are tagged errors, never evaluated as code", () => {
    expect(() => evaluateCondition("$body.count > ", vars)).toThrow(InvalidCondition);
    expect(() => evaluateCondition("process.exit(1)", vars)).toThrow(InvalidCondition);
    expect(() => evaluateCondition("$nope > 1", vars)).toThrow(UnresolvedVariable);
    expect(() => evaluateCondition("$name > 1", vars)).toThrow(InvalidCondition);
    expect(() => evaluateCondition("'open", vars)).toThrow(InvalidCondition);
  });
});

const PY = "import os\n\n\nclass QuerySet:\n    def defer(self):\n        return 1\n";

describe("define_operators", () => {
  test("the design's add_cached_property runs with $param substitution", () => {
    const plan = {
      define_operators: [
        {
          define: "add_cached_property",
          params_schema: { file: "string", class_name: "string", prop_name: "string", body: "string" },
          steps: [
            {
              primitive: "insert_after_node",
              params: {
                locator: { kind: "class", name: "$class_name", file: "$file", field: "body", nth_child: -1 },
                code: "\n    @cached_property\n    def $prop_name(self):\n$body",
              },
            },
          ],
        },
      ],
      plan: [
        { op: "add_import", params: { file: "q.py", import_statement: "from functools import cached_property" } },
        {
          op: "add_cached_property",
          params: { file: "q.py", class_name: "QuerySet", prop_name: "_key", body: "        return hash(self.query)" },
        },
      ],
    };
    const result = runPlan(planOf(plan), new Map([["q.py", PY]]));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.files.get("q.py")).toBe(
      "import os\nfrom functools import cached_property\n\n\nclass QuerySet:\n    def defer(self):\n        return 1\n\n    @cached_property\n    def _key(self):\n        return hash(self.query)\n",
    );
  });

  test("bind and if/then/else choose a branch from a locate result", () => {
    const op = () => ({
      define: "ensure_method",
      params_schema: { file: "string", name: "string" },
      steps: [
        { primitive: "locate", params: { locator: { kind: "method", name: "$name", file: "$file" } }, bind: "found" },
        {
          if: "$found.count == 0",
          then: {
            primitive: "add_method",
            params: { file: "$file", class_name: "QuerySet", method_code: "def $name(self):\n    return None" },
          },
          else: {
            primitive: "replace_node",
            params: {
              locator: { kind: "method", name: "$name", file: "$file" },
              replacement: "def $name(self):\n    return $found.count",
            },
          },
        },
      ],
    });
    const result = runPlan(
      planOf({
        define_operators: [op()],
        plan: [
          { op: "ensure_method", params: { file: "q.py", name: "only" } },
          { op: "ensure_method", params: { file: "q.py", name: "defer" } },
        ],
      }),
      new Map([["q.py", PY]]),
    );
    if (!result.ok) throw result.error;
    const out = result.files.get("q.py")!;
    expect(out).toContain("    def defer(self):\n        return 1\n");
    expect(out).toContain("    def only(self):\n        return None\n");
  });

  test("custom operators live only for their plan", () => {
    const files = new Map([["q.py", PY]]);
    const first = runPlan(
      planOf({
        define_operators: [
          {
            define: "noop_op",
            params_schema: { file: "string" },
            steps: [{ primitive: "locate", params: { locator: { file: "$file" } } }],
          },
        ],
        plan: [{ op: "noop_op", params: { file: "q.py" } }],
      }),
      files,
    );
    expect(first.ok).toBe(true);
    const second = runPlan(planOf([{ op: "noop_op", params: { file: "q.py" } }]), files);
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.error.cause).toMatchObject({ _tag: "UnknownOperator" });
  });

  test("parameters are checked against params_schema", () => {
    const result = runPlan(
      planOf({
        define_operators: [
          {
            define: "needs_two",
            params_schema: { file: "string", count: "number" },
            steps: [{ primitive: "locate", params: { locator: { file: "$file" } } }],
          },
        ],
        plan: [{ op: "needs_two", params: { file: "q.py", count: "many" } }],
      }),
      new Map([["q.py", PY]]),
    );
    expect(!result.ok && result.error.message).toMatch(/"count" should be a number/);
  });

  test("redefining an operator and self-recursion are tagged errors", () => {
    const redefined = runPlan(
      planOf({
        define_operators: [{ define: "replace_node", params_schema: {}, steps: [{ primitive: "locate", params: {} }] }],
        plan: [{ op: "locate", params: {} }],
      }),
      new Map(),
    );
    expect(!redefined.ok && redefined.error).toMatchObject({ _tag: "OperatorRedefined" });
    const loop = runPlan(
      planOf({
        define_operators: [{ define: "loop", params_schema: {}, steps: [{ primitive: "loop", params: {} }] }],
        plan: [{ op: "loop", params: {} }],
      }),
      new Map(),
    );
    expect(!loop.ok && loop.error).toMatchObject({ _tag: "StepFailed", cause: { _tag: "RecursionLimit" } });
  });
});
