import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./fixtures/bench.js";
import { appendPrediction, readPredictions, writePredictions } from "./preds.js";

const pred = (id: string, patch = "") => ({
  instance_id: id,
  model_name_or_path: "graphplan/scripted:model",
  model_patch: patch,
});

describe("preds.jsonl", () => {
  it("has no predictions when the file does not exist", async () => {
    expect(await readPredictions(join(tempDir(), "preds.jsonl"))).toEqual({ predictions: new Map(), badLines: [] });
  });

  it("appends one whole line per prediction and reads them back, a later line for an id winning", async () => {
    const path = join(tempDir(), "preds.jsonl");
    await appendPrediction(path, pred("a-1", "diff --git a/x b/x\n"));
    await appendPrediction(path, pred("b-2"));
    await appendPrediction(path, pred("a-1", "second\n"));
    expect(readFileSync(path, "utf8").split("\n")).toEqual([
      '{"instance_id":"a-1","model_name_or_path":"graphplan/scripted:model","model_patch":"diff --git a/x b/x\\n"}',
      '{"instance_id":"b-2","model_name_or_path":"graphplan/scripted:model","model_patch":""}',
      '{"instance_id":"a-1","model_name_or_path":"graphplan/scripted:model","model_patch":"second\\n"}',
      "",
    ]);
    const { predictions, badLines } = await readPredictions(path);
    expect([...predictions.values()]).toEqual([pred("a-1", "second\n"), pred("b-2")]);
    expect(badLines).toEqual([]);
  });

  it("reports lines that are not predictions (a line cut short by a crash) and rewrites the file without them, leaving no temporary file", async () => {
    const dir = tempDir();
    const path = join(dir, "preds.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify(pred("a-1"))}\n{"instance_id": "b-2"}\n${JSON.stringify(pred("c-3")).slice(0, 30)}`,
    );
    const { predictions, badLines } = await readPredictions(path);
    expect([...predictions.keys()]).toEqual(["a-1"]);
    expect(badLines).toEqual([2, 3]);
    await writePredictions(path, predictions.values());
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify(pred("a-1"))}\n`);
    expect(readdirSync(dir)).toEqual(["preds.jsonl"]);
  });

  it("keeps the harness's three fields as they are, first, and carries the instance's usage after them; a line without usage still reads", async () => {
    const path = join(tempDir(), "preds.jsonl");
    const usage = {
      model_calls: 4,
      cost_usd: 0.125,
      input_tokens: 12_000,
      output_tokens: 800,
      cache_read_tokens: 9000,
      cache_write_tokens: 1500,
    };
    await appendPrediction(path, { ...pred("a-1", "diff --git a/x b/x\n"), usage });
    writeFileSync(path, `${readFileSync(path, "utf8")}${JSON.stringify(pred("b-2"))}\n`);
    const [first] = readFileSync(path, "utf8").split("\n");
    expect(first).toBe(
      '{"instance_id":"a-1","model_name_or_path":"graphplan/scripted:model","model_patch":"diff --git a/x b/x\\n","usage":{"model_calls":4,"cost_usd":0.125,"input_tokens":12000,"output_tokens":800,"cache_read_tokens":9000,"cache_write_tokens":1500}}',
    );
    expect(Object.keys(JSON.parse(first!))).toEqual(["instance_id", "model_name_or_path", "model_patch", "usage"]);
    const { predictions, badLines } = await readPredictions(path);
    expect(badLines).toEqual([]);
    expect(predictions.get("a-1")).toEqual({ ...pred("a-1", "diff --git a/x b/x\n"), usage });
    expect(predictions.get("b-2")).toEqual(pred("b-2"));
    // Rewritten (start and end of a run, a merge): the usage stays, and the old line stays without one.
    await writePredictions(path, predictions.values());
    expect(readFileSync(path, "utf8")).toBe(`${first}\n${JSON.stringify(pred("b-2"))}\n`);
  });
});
