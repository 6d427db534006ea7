import { describe, expect, it } from "vitest";
import { parseAgentDataset, selectInstances } from "./instances.js";

const line = (fields: Record<string, unknown>) => JSON.stringify({ repo: "acme/calc", base_commit: "abc1234", problem_statement: "Fix it.", ...fields });

describe("parseAgentDataset", () => {
  it("reads SWE-bench lines without needing the gold patch, keeps other fields, and skips blank lines", () => {
    const lines = parseAgentDataset(`${line({ instance_id: "acme__calc-1", version: "1.0" })}\n\n${line({ instance_id: "acme__calc-2", patch: "diff --git a/x b/x" })}\n`);
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
    expect(chosen.map((l) => (l.ok ? l.instance.instance_id : `${l.cause}:${l.id}`))).toEqual(["a-1", "bad_line:line-2", "b-2", "unknown_instance:zz-9"]);
    expect(chosen[3]).toMatchObject({ line: null, error: "no line of the dataset has instance_id zz-9" });
  });
});
