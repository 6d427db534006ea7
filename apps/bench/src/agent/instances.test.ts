import { describe, expect, it } from "vitest";
import { parseAgentDataset, selectInstances, selectionOf, type AgentLine } from "./instances.js";

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ repo: "acme/calc", base_commit: "abc1234", problem_statement: "Fix it.", ...fields });

describe("parseAgentDataset", () => {
  it("reads SWE-bench lines without needing the gold patch, keeps other fields, and skips blank lines", () => {
    const lines = parseAgentDataset(
      `${line({ instance_id: "acme__calc-1", version: "1.0" })}\n\n${line({ instance_id: "acme__calc-2", patch: "diff --git a/x b/x" })}\n`,
    );
    expect(lines.map((l) => (l.ok ? [l.line, l.instance.instance_id] : l))).toEqual([
      [1, "acme__calc-1"],
      [3, "acme__calc-2"],
    ]);
    expect(lines[0]!.ok && lines[0]!.instance.version).toBe("1.0");
  });

  it("turns each unusable line into a bad_line or duplicate_instance entry, named by its id or line number", () => {
    const lines = parseAgentDataset(
      [
        "{",
        line({ instance_id: "acme__calc-1", problem_statement: "  " }),
        line({ instance_id: "../up" }),
        line({ instance_id: "acme__calc-2", base_commit: "main" }),
        line({ instance_id: "acme__calc-3" }),
        line({ instance_id: "acme__calc-3", problem_statement: "Again." }),
      ].join("\n"),
    );
    expect(lines.map((l) => (l.ok ? ["ok", l.instance.instance_id] : [l.cause, l.id]))).toEqual([
      ["bad_line", "line-1"],
      ["bad_line", "acme__calc-1"],
      ["bad_line", "../up"],
      ["bad_line", "acme__calc-2"],
      ["ok", "acme__calc-3"],
      ["duplicate_instance", "acme__calc-3"],
    ]);
    const errors = lines.flatMap((l) => (l.ok ? [] : [l.error]));
    expect(errors[0]).toMatch(/^line 1 is not JSON/);
    expect(errors[1]).toContain("problem_statement: problem_statement is empty");
    expect(errors[2]).toContain("instance_id: instance_id is letters, digits");
    expect(errors[3]).toContain("base_commit: base_commit is a hexadecimal commit id");
    expect(errors[4]).toBe("line 6 repeats instance acme__calc-3 (the first line with it is used)");
  });
});

describe("selectInstances", () => {
  const lines = parseAgentDataset([line({ instance_id: "a-1" }), "nope", line({ instance_id: "b-2" })].join("\n"));

  it("keeps every line without ids, and the named ones in dataset order otherwise, unknown ids last", () => {
    expect(selectInstances(lines, undefined)).toHaveLength(3);
    expect(selectInstances(lines, [])).toHaveLength(3);
    const chosen = selectInstances(lines, ["zz-9", "b-2", "line-2", "a-1"]);
    expect(chosen.map((l) => (l.ok ? l.instance.instance_id : `${l.cause}:${l.id}`))).toEqual([
      "a-1",
      "bad_line:line-2",
      "b-2",
      "unknown_instance:zz-9",
    ]);
    expect(chosen[3]).toMatchObject({ line: null, error: "no line of the dataset has instance_id zz-9" });
  });
});

describe("selection (--shuffle, --filter, --slice)", () => {
  const lines = parseAgentDataset(
    ["django__django-1", "django__django-2", "sympy__sympy-3", "sympy__sympy-4", "flask__flask-5"]
      .map((id) => JSON.stringify({ repo: "a/b", instance_id: id, base_commit: "abc1234", problem_statement: "x" }))
      .join("\n"),
  );
  const ids = (selected: AgentLine[]) => selected.map((l) => (l.ok ? l.instance.instance_id : l.id));

  it("filters ids by a regular expression, then takes a Python slice", () => {
    expect(ids(selectionOf({ filter: "^sympy" })(lines))).toEqual(["sympy__sympy-3", "sympy__sympy-4"]);
    expect(ids(selectionOf({ slice: "1:3" })(lines))).toEqual(["django__django-2", "sympy__sympy-3"]);
    expect(ids(selectionOf({ slice: "-2:" })(lines))).toEqual(["sympy__sympy-4", "flask__flask-5"]);
    expect(ids(selectionOf({ filter: "django|flask", slice: ":2" })(lines))).toEqual([
      "django__django-1",
      "django__django-2",
    ]);
  });

  it("shuffles the same way for the same seed and another way for another seed, keeping every instance", () => {
    const a = ids(selectionOf({ shuffle: true, seed: 7 })(lines));
    expect(ids(selectionOf({ shuffle: true, seed: 7 })(lines))).toEqual(a);
    expect([...a].sort()).toEqual(ids(lines).sort());
    const others = [1, 2, 3, 4, 5].map((seed) => ids(selectionOf({ shuffle: true, seed })(lines)).join());
    expect(new Set([a.join(), ...others]).size).toBeGreaterThan(1);
  });

  it("refuses a malformed regular expression or slice, saying what to write", () => {
    expect(() => selectionOf({ filter: "(" })).toThrow(/^--filter \(: not a regular expression/);
    expect(() => selectionOf({ slice: "3" })).toThrow(
      "--slice 3: give START:END (e.g. 0:20, 20:, :5), as a Python slice",
    );
  });
});
