import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PYTHON_BUILTINS, PYTHON_BUILTINS_AFTER_311 } from "./python-builtins.js";

function python3Builtins(): { version: [number, number]; names: string[] } | undefined {
  try {
    const out = execFileSync(
      "python3",
      ["-c", "import builtins, json, sys; print(json.dumps([sys.version_info[:2], sorted(dir(builtins))]))"],
      { encoding: "utf8" },
    );
    const [version, names] = JSON.parse(out) as [[number, number], string[]];
    return { version, names };
  } catch {
    return undefined;
  }
}

const found = python3Builtins();

describe("the static Python builtins list", () => {
  it.skipIf(!found)("holds every name of the machine's python3 builtins module", () => {
    const missing = found!.names.filter((n) => !PYTHON_BUILTINS.includes(n));
    expect(missing).toEqual([]);
  });

  it.skipIf(!found)("holds nothing that python3 lacks, except the names added after 3.11", () => {
    const extra = PYTHON_BUILTINS.filter((n) => !found!.names.includes(n));
    expect(extra.filter((n) => !PYTHON_BUILTINS_AFTER_311.includes(n))).toEqual([]);
    if (found!.version[0] === 3 && found!.version[1] <= 11)
      expect(extra.sort()).toEqual([...PYTHON_BUILTINS_AFTER_311].sort());
  });

  it("is sorted and has no duplicates", () => {
    expect([...PYTHON_BUILTINS]).toEqual([...new Set(PYTHON_BUILTINS)].sort());
  });
});
