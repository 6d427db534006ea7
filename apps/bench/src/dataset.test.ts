import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DatasetInstanceSchema, parseDataset, readDataset } from "./dataset.js";

const LITE = fileURLToPath(new URL("../../../../shared/datasets/swe-bench-lite.test.jsonl", import.meta.url));

describe("the dataset schema", () => {
  it("accepts every instance of SWE-bench Lite in ../shared/datasets", async () => {
    expect(existsSync(LITE), `${LITE} is beside the clone in CI`).toBe(true);
    const lines = await readDataset(LITE);
    const bad = lines.filter((l) => !l.ok);
    expect(bad).toEqual([]);
    expect(lines).toHaveLength(300);
    const ids = new Set(lines.map((l) => (l.ok ? l.instance.instance_id : "")));
    expect(ids.size).toBe(300);
    // Fields other than the four the bench needs are kept, not stripped.
    const first = lines[0]!;
    expect(first.ok && typeof first.instance["problem_statement"]).toBe("string");
  });

  it("reports an unreadable line by its number and reads the others", () => {
    const good = JSON.stringify({
      repo: "a/b",
      instance_id: "a__b-1",
      base_commit: "0123456789abcdef0123456789abcdef01234567",
      patch: "diff --git a/x b/x\n",
    });
    const text = [
      good,
      "{not json",
      JSON.stringify({ repo: "a/b", instance_id: "a__b-2", patch: "p" }),
      "",
      good.replace("a__b-1", "a__b-3"),
    ].join("\n");
    const lines = parseDataset(text);
    expect(lines.map((l) => [l.line, l.ok])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [5, true],
    ]);
    const missing = lines[2]!;
    expect(!missing.ok && missing.instanceId).toBe("a__b-2");
    expect(!missing.ok && missing.error).toMatch(/base_commit/);
    expect(!lines[1]!.ok && lines[1]!.error).toMatch(/line 2 is not JSON/);
  });

  it("rejects a repo that is not owner/name and a commit that is not hexadecimal", () => {
    const ok = { repo: "psf/requests", instance_id: "x", base_commit: "abc1234", patch: "p" };
    expect(DatasetInstanceSchema.safeParse(ok).success).toBe(true);
    expect(DatasetInstanceSchema.safeParse({ ...ok, repo: "requests" }).success).toBe(false);
    expect(DatasetInstanceSchema.safeParse({ ...ok, base_commit: "main" }).success).toBe(false);
    expect(DatasetInstanceSchema.safeParse({ ...ok, patch: "" }).success).toBe(false);
  });

  it("every Lite gold patch is a git diff of one file", () => {
    for (const line of readFileSync(LITE, "utf8").trim().split("\n")) {
      const { patch } = JSON.parse(line) as { patch: string };
      expect(patch.match(/^diff --git /gm)).toHaveLength(1);
    }
  });
});
