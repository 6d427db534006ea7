/** `graphplan verify`, and `graphplan apply` refusing a plan that does not verify. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runInProcess } from "./fixtures/in-process.js";
import { applyCommand } from "./apply.js";
import { verifyCommand } from "./verify.js";

const A = "from pkg.b import helper\n\n\ndef f():\n    return helper(1)\n";
const B = "def helper(x):\n    return x * 2\n";
const good = {
  op: "replace_node",
  params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return helper(2)" },
};
const badLocator = { op: "delete_node", params: { locator: { kind: "function", name: "nope", file: "a.py" } } };
const badSyntax = {
  op: "replace_node",
  params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f(:\n    return 3" },
};
const resignature = {
  op: "replace_node",
  params: {
    locator: { kind: "function", name: "helper", file: "pkg/b.py" },
    replacement: "def helper(x, y):\n    return x * y",
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project() {
  const root = mkdtempSync(join(tmpdir(), "graphplan-verify-"));
  const plans = mkdtempSync(join(tmpdir(), "graphplan-vplans-"));
  dirs.push(root, plans);
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "a.py"), A);
  writeFileSync(join(root, "pkg/b.py"), B);
  const planFile = (content: unknown) => {
    const path = join(plans, `plan-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const files = () => ({
    a: readFileSync(join(root, "a.py"), "utf8"),
    b: readFileSync(join(root, "pkg/b.py"), "utf8"),
  });
  return { root, planFile, files };
}

const graphplan = (...args: string[]) => runInProcess([applyCommand, verifyCommand], args);

describe("graphplan verify", () => {
  it("prints PASSED and exits 0 for a plan without errors, changing nothing", async () => {
    const p = project();
    const out = await graphplan("verify", p.planFile([good]), "--root", p.root);
    expect(out).toEqual({ code: 0, stdout: "PASSED\n", stderr: "" });
    expect(p.files()).toEqual({ a: A, b: B });
  });

  it("prints every error and warning and exits 1 for a plan with errors", async () => {
    const p = project();
    const inB = (step: typeof badLocator | typeof badSyntax) =>
      JSON.parse(JSON.stringify(step).replaceAll('"a.py"', '"pkg/b.py"').replace('"name":"f"', '"name":"helper"'));
    const out = await graphplan("verify", p.planFile([inB(badLocator), inB(badSyntax), resignature]), "--root", p.root);
    expect(out.code).toBe(1);
    const lines = out.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("FAILED: 2 errors, 1 warning");
    expect(lines[1]).toMatch(/^error: Step 1 \(delete_node\): Locator did not match any AST node in pkg\/b.py/);
    expect(lines[2]).toMatch(/^error: Step 2 \(replace_node\): Replacement produces syntax error in pkg\/b.py/);
    expect(lines[3]).toMatch(
      /^warning: Step 3 \(replace_node\): 'helper' \(signature changed from \(x\) to \(x,y\)\) is imported by files not in this plan: \['a.py'\]/,
    );
    expect(out.stderr).toBe("graphplan: the plan did not pass verification: 2 errors\n");
    expect(p.files()).toEqual({ a: A, b: B });
  });

  it("prints passed, errors, warnings, issues and places under --json", async () => {
    const p = project();
    const out = await graphplan("verify", p.planFile([badLocator]), "--root", p.root, "--json");
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(["errors", "issues", "passed", "places", "warnings"]);
    // The step failed: it changed no code, so it has no place.
    expect(json["places"]).toEqual([]);
    expect(json["passed"]).toBe(false);
    expect(json["errors"]).toEqual([expect.stringMatching(/^Step 1 \(delete_node\): /)]);
    // `issues[].step` is the index in the plan array; the rendered message numbers it from 1.
    expect(json["issues"]).toEqual([
      expect.objectContaining({ step: 0, op: "delete_node", check: "locator", severity: "error", file: "a.py" }),
    ]);
  });

  it("reads the workspace relative to the default root, the current directory", async () => {
    const p = project();
    // The warning needs a.py, which the plan does not name: it must come from walking the root.
    const plan = p.planFile([resignature]);
    const cwd = process.cwd();
    process.chdir(p.root);
    try {
      const out = await graphplan("verify", plan);
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(
        /^PASSED with 1 warning\nwarning: Step 1 \(replace_node\): 'helper' .* is imported by files not in this plan: \['a.py'\]/,
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it("reports a plan that is not JSON with exit 2", async () => {
    const p = project();
    const path = join(p.root, "plan.json");
    writeFileSync(path, "[{");
    const out = await graphplan("verify", path, "--root", p.root);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/is not valid JSON/);
  });
});

describe("graphplan apply verifies first", () => {
  it("refuses a plan that does not verify, prints why, exits 1 and changes no file", async () => {
    const p = project();
    const out = await graphplan("apply", p.planFile([good, badLocator]), "--root", p.root);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(
      /^FAILED: 1 error, 0 warnings\nerror: Step 2 \(delete_node\): Locator did not match any AST node/,
    );
    expect(out.stderr).toMatch(/graphplan: the plan did not pass verification \(1 error\); no file was changed\n$/);
    expect(p.files()).toEqual({ a: A, b: B });
  });

  it("says so as JSON under --json", async () => {
    const p = project();
    const out = await graphplan("apply", p.planFile([badSyntax]), "--root", p.root, "--json");
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ok: false,
      verification: { passed: false, errors: [expect.stringMatching(/syntax error/)] },
    });
    expect(p.files()).toEqual({ a: A, b: B });
  });

  it("applies a plan that verifies (warnings allowed)", async () => {
    const p = project();
    const out = await graphplan("apply", p.planFile([good]), "--root", p.root);
    expect(out.code).toBe(0);
    expect(p.files().a).toBe(A.replace("helper(1)", "helper(2)"));
  });
});

describe("from the repository root", () => {
  it("runs as `pnpm -s graphplan verify ... --json`", () => {
    const p = project();
    const repo = join(import.meta.dirname, "..", "..", "..", "..");
    const result = spawnSync("pnpm", ["-s", "graphplan", "verify", p.planFile([good]), "--root", p.root, "--json"], {
      cwd: repo,
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ passed: true, errors: [], warnings: [] });
  });
});
