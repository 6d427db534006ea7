import { describe, expect, it } from "vitest";
import { bashBlocks, extractPlan, isSubmission, parseAction, parseReadyToPlan, truncateOutput } from "./parse.js";

describe("bash blocks", () => {
  it("extracts the command of each ```bash block, multi-line commands included", () => {
    const reply = "THOUGHT: two things\n\n```bash\nls -la\n```\ntext\n```bash\ncat <<'EOF' > a.py\nx = 1\nEOF\n```";
    expect(bashBlocks(reply)).toEqual(["ls -la", "cat <<'EOF' > a.py\nx = 1\nEOF"]);
  });

  it("a reply with exactly one block is a command; none, several or an empty one is a format error", () => {
    expect(parseAction("THOUGHT: x\n```bash\ngrep -rn foo .\n```")).toEqual({
      kind: "command",
      command: "grep -rn foo .",
    });
    expect(parseAction("just text")).toEqual({ kind: "format_error", blocks: 0 });
    expect(parseAction("```bash\nls\n```\n```bash\npwd\n```")).toEqual({ kind: "format_error", blocks: 2 });
    expect(parseAction("```bash\n  \n```")).toEqual({ kind: "format_error", blocks: 1 });
    // Other languages are not commands.
    expect(parseAction("```sh\nls\n```\n```python\nprint(1)\n```")).toEqual({ kind: "format_error", blocks: 0 });
  });

  it("accepts CRLF line ends and an indented closing fence", () => {
    expect(bashBlocks("```bash\r\nls\r\n  ```")).toEqual(["ls"]);
  });
});

describe("READY_TO_PLAN", () => {
  it("is absent from a reply without the marker", () => {
    expect(parseReadyToPlan("```bash\nls\n```")).toBeUndefined();
  });

  it("reads the JSON list after the marker, wherever it is, normalizing and deduplicating paths", () => {
    expect(parseReadyToPlan('THOUGHT: done.\nREADY_TO_PLAN: ["src/a.py", "./src/b.py", "src/a.py"]')).toEqual({
      ok: true,
      files: ["src/a.py", "src/b.py"],
    });
    expect(parseReadyToPlan("```bash\necho 'READY_TO_PLAN: [\"x.py\"]'\n```")).toEqual({ ok: true, files: ["x.py"] });
    expect(parseReadyToPlan('READY_TO_PLAN:\n[\n  "a/b]c.py"\n] and more]')).toEqual({ ok: true, files: ["a/b]c.py"] });
  });

  it("reports a list that is missing, not JSON, not strings or empty", () => {
    expect(parseReadyToPlan("READY_TO_PLAN: src/a.py")).toEqual({
      ok: false,
      problem: "READY_TO_PLAN: must be followed by a JSON list of file paths",
    });
    expect(parseReadyToPlan("READY_TO_PLAN: ['a.py']")).toMatchObject({
      ok: false,
      problem: expect.stringContaining("not valid JSON"),
    });
    expect(parseReadyToPlan("READY_TO_PLAN: [1, 2]")).toMatchObject({
      ok: false,
      problem: expect.stringContaining("as strings"),
    });
    expect(parseReadyToPlan("READY_TO_PLAN: []")).toMatchObject({
      ok: false,
      problem: expect.stringContaining("is empty"),
    });
  });
});

describe("the submit marker", () => {
  it("is the first line of a command's output", () => {
    expect(isSubmission("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n")).toBe(true);
    expect(isSubmission("\n  COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\nmore")).toBe(true);
    expect(isSubmission("something\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n")).toBe(false);
    expect(isSubmission("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT_NOT")).toBe(false);
  });
});

describe("plan extraction (the plan-integrity gate)", () => {
  const step = { op: "delete_node", params: { locator: { kind: "function", name: "f", file: "a.py" } } };

  it("accepts an array of steps and an object with plan", () => {
    expect(extractPlan("```json\n" + JSON.stringify([step]) + "\n```")).toMatchObject({
      ok: true,
      json: [step],
      channel: "json block",
    });
    const withOps = { define_operators: [], plan: [{ template: "guard_clause", params: {} }] };
    expect(extractPlan("THOUGHT\n```json\n" + JSON.stringify(withOps) + "\n```")).toMatchObject({
      ok: true,
      json: withOps,
    });
  });

  it("refuses a file list, an empty array, other JSON, bad JSON, no block and several blocks, saying why", () => {
    expect(extractPlan('```json\n["src/foo.py"]\n```')).toMatchObject({
      ok: false,
      error: "the json block is not a plan: the plan's elements are not step objects (a list of file names?)",
      json: ["src/foo.py"],
    });
    expect(extractPlan("```json\n[]\n```")).toMatchObject({
      ok: false,
      error: "the json block is not a plan: the plan is empty",
    });
    expect(extractPlan('```json\n{"files": ["a.py"]}\n```')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the json block is not a plan/),
    });
    expect(extractPlan('```json\n[{"op": 3}]\n```')).toMatchObject({
      ok: false,
      error: 'the json block is not a plan: step 1: "op" is 3, not the name of an operator',
    });
    expect(extractPlan('```json\n[{"op": "replace_node", "params": {}}, {"locator": {}}]\n```')).toMatchObject({
      ok: false,
      error: 'the json block is not a plan: step 2: the step has no "op", "template" or "fragment"',
    });
    expect(extractPlan("```json\n[{op: 1}]\n```")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the json block is not valid JSON/),
    });
    expect(extractPlan("THOUGHT: I am not sure yet.")).toEqual({
      ok: false,
      error: "the reply has no plan: no ```json block, no fenced block and no JSON in the text",
    });
    expect(extractPlan('Here are the files:\n["src/foo.py"]')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the JSON in the reply is not a plan: the plan's elements are not step objects/),
    });
    const two = "```json\n" + JSON.stringify([step]) + "\n```\n```json\n" + JSON.stringify([step]) + "\n```";
    expect(extractPlan(two)).toMatchObject({ ok: false, error: expect.stringContaining("2 ```json blocks") });
  });
});

describe("output truncation", () => {
  it("keeps short outputs and cuts long ones to head and tail", () => {
    expect(truncateOutput("abc", 3)).toEqual({ truncated: false, output: "abc" });
    expect(truncateOutput("0123456789", 4)).toEqual({ truncated: true, head: "01", tail: "89", elided: 6 });
    expect(truncateOutput("0123456789", 5)).toEqual({ truncated: true, head: "01", tail: "89", elided: 6 });
  });
});

describe("plan channels", () => {
  const step = { op: "delete_node", params: { locator: { kind: "function", name: "f", file: "a.py" } } };
  it("takes the plan from a ```json block, a fence without a tag, or bare JSON in the prose, and says which", () => {
    const plan = JSON.stringify([step], null, 2);
    expect(extractPlan("```json\n" + plan + "\n```")).toMatchObject({ ok: true, channel: "json block" });
    expect(extractPlan("THOUGHT: the fix.\n\n```\n" + plan + "\n```")).toMatchObject({
      ok: true,
      channel: "untagged fence",
    });
    expect(extractPlan("THOUGHT: the fix is this plan:\n" + plan + "\nThat is all.")).toMatchObject({
      ok: true,
      channel: "bare JSON",
      json: [step],
    });
    expect(extractPlan('The plan: {"plan": ' + JSON.stringify([step]) + "}")).toMatchObject({
      ok: true,
      channel: "bare JSON",
    });
  });

  it("prefers a fenced plan to other JSON and skips fences that hold no plan", () => {
    const plan = JSON.stringify([step]);
    const reply = '```\nls -la\n```\n\nThe files: ["a.py"]\n\n```\n' + plan + "\n```";
    expect(extractPlan(reply)).toMatchObject({ ok: true, channel: "untagged fence" });
  });
});
