import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { normalizePlan, underRoot } from "./normalize.js";
import { PlanSession } from "@graphplan/primitives";
import { formalHandlers, runFormalPlan, stepEdits, validateStep } from "./execute.js";
import { parsePlanOrThrow } from "./testing.js";

beforeAll(() => loadGrammars(["python"]));

const CART = "def total(items):\n    tmp = sum(items)\n    return tmp\n\n\ndef other():\n    tmp = 1\n    return tmp\n";
const locator = { kind: "function", name: "total", file: "app/cart.py" };

describe("plan mistakes whose intent is certain are corrected, and each correction is said", () => {
  test("an absolute path under the root is taken as the relative path", () => {
    const { plan, corrections } = normalizePlan(
      [{ op: "delete_node", params: { locator: { ...locator, file: "/srv/repo/app/cart.py" } } }],
      { root: "/srv/repo/" },
    );
    expect(plan).toEqual([{ op: "delete_node", params: { locator } }]);
    expect(corrections).toEqual([
      { step: 0, message: 'paths are relative to the root /srv/repo/: took "/srv/repo/app/cart.py" as "app/cart.py"' },
    ]);
  });

  test("file operations' parameters under the names models give them, and their absolute paths, are corrected", () => {
    const { plan, corrections } = normalizePlan(
      [
        { op: "create_file", params: { file: "/repo/pkg/new.py", code: "x = 1\n" } },
        { op: "rename_file", params: { old_path: "pkg/a.py", new_path: "/repo/pkg/b.py" } },
        { op: "delete_file", params: { filename: "pkg/c.py" } },
        {
          op: "rename_across_files",
          params: { file: "pkg/b.py", name: "f", new_name: "g", importers: ["/repo/pkg/main.py", "pkg/other.py"] },
        },
      ],
      { root: "/repo" },
    );
    expect(plan).toEqual([
      { op: "create_file", params: { path: "pkg/new.py", content: "x = 1\n" } },
      { op: "rename_file", params: { from: "pkg/a.py", to: "pkg/b.py" } },
      { op: "delete_file", params: { path: "pkg/c.py" } },
      {
        op: "rename_across_files",
        params: { file: "pkg/b.py", name: "f", new_name: "g", importers: ["pkg/main.py", "pkg/other.py"] },
      },
    ]);
    expect(corrections.map((c) => `${c.step}: ${c.message}`)).toEqual(
      expect.arrayContaining([
        '0: create_file takes "path": took "file" as "path"',
        '0: create_file takes "content": took "code" as "content"',
        '1: rename_file takes "from": took "old_path" as "from"',
        '1: rename_file takes "to": took "new_path" as "to"',
        '2: delete_file takes "path": took "filename" as "path"',
        '3: paths are relative to the root /repo: took "/repo/pkg/main.py" as "pkg/main.py"',
      ]),
    );
    // The real names win: nothing is moved when the step has them.
    expect(
      normalizePlan([{ op: "create_file", params: { path: "a.py", content: "", code: "x" } }]).corrections,
    ).toEqual([]);
  });

  test("an absolute path outside the root, or a path with '..', is left for the verifier to reject", () => {
    expect(underRoot("/etc/passwd", "/srv/repo")).toBeUndefined();
    expect(underRoot("/srv/repo/../x.py", "/srv/repo")).toBeUndefined();
    expect(underRoot("/srv/repository/x.py", "/srv/repo")).toBeUndefined();
    expect(
      normalizePlan([{ op: "delete_node", params: { locator: { ...locator, file: "/etc/x.py" } } }], {
        root: "/srv/repo",
      }).corrections,
    ).toEqual([]);
  });

  test("an operator given as a template becomes an op step; a template given as an op becomes a template step", () => {
    const { plan, corrections } = normalizePlan({
      define_operators: [],
      plan: [
        { template: "replace_node", params: { locator, replacement: "def total(items):\n    return 0" } },
        { op: "guard_clause", params: { target: locator, condition: "not items", body: "return 0" } },
      ],
    });
    expect((plan as { plan: unknown[] }).plan).toEqual([
      { op: "replace_node", params: { locator, replacement: "def total(items):\n    return 0" } },
      { template: "guard_clause", params: { target: locator, condition: "not items", body: "return 0" } },
    ]);
    expect(corrections.map((c) => c.message)).toEqual([
      '"replace_node" is an operator, not a template: ran it as {"op": "replace_node", "params": {...}}',
      '"guard_clause" is a template, not an operator: ran it as {"template": "guard_clause", "params": {...}}',
    ]);
  });

  test("a fragment step with its locator under 'target' and an operator's name as action is corrected", () => {
    const fragment = { kind: "return_statement", properties: { value: "0" } };
    const { plan, corrections } = normalizePlan([{ fragment, action: "insert_after_node", target: locator }]);
    expect(plan).toEqual([{ fragment, action: "insert_after", locator }]);
    expect(corrections).toHaveLength(2);
    expect(corrections[0]!.message).toContain('took "target" as "locator"');
  });

  test("a name that is both a template and an operator, given the other form's parameters, runs in that form", () => {
    const SHOP = "class Cart:\n    def total(self):\n        return 0\n";
    const asOp = { file: "shop.py", class_name: "Cart", method_code: "def empty(self):\n    return True" };
    const asTemplate = {
      target: { kind: "class", name: "Cart", file: "shop.py" },
      code: "def full(self):\n    return False",
    };
    const fixed = normalizePlan([
      { template: "add_method", params: asOp },
      { op: "add_method", params: asTemplate },
    ]);
    expect(fixed.plan).toEqual([
      { op: "add_method", params: asOp },
      { template: "add_method", params: asTemplate },
    ]);
    expect(fixed.corrections.map((c) => c.message)).toEqual([
      'these are the parameters of the op "add_method", not of the template: ran it as {"op": "add_method", "params": {...}}',
      'these are the parameters of the template "add_method", not of the op: ran it as {"template": "add_method", "params": {...}}',
    ]);
    // Params that fit the form given, or neither form, are left as they are (the verifier names what is wrong).
    expect(
      normalizePlan([
        { op: "add_method", params: asOp },
        { template: "add_method", params: { code: "x" } },
      ]).corrections,
    ).toEqual([]);
    const run = runFormalPlan(parsePlanOrThrow(fixed.plan), new Map([["shop.py", SHOP]]));
    if (!run.ok) throw run.error;
    expect(run.files.get("shop.py")).toContain("    def empty(self):\n        return True");
    expect(run.files.get("shop.py")).toContain("    def full(self):\n        return False");
  });

  test("a locator's file under 'path', or beside the locator in the params of an op that takes no file, goes into the locator", () => {
    const { file, ...bare } = locator;
    const fixed = normalizePlan([
      { op: "delete_node", params: { locator: { path: file, ...bare } } },
      { op: "replace_node", params: { file, locator: { ...bare, parent: { kind: "module" } }, replacement: "pass" } },
      { fragment: { kind: "return", path: "x" }, locator: { file_path: file, ...bare } },
    ]);
    expect(fixed.plan).toEqual([
      { op: "delete_node", params: { locator } },
      { op: "replace_node", params: { locator: { file, ...bare, parent: { kind: "module" } }, replacement: "pass" } },
      { fragment: { kind: "return", path: "x" }, locator },
    ]);
    expect(fixed.corrections.map((c) => `${c.step}: ${c.message}`)).toEqual([
      '0: a locator names its file with "file": took "path" as "file"',
      `1: replace_node takes the file in its locator: moved "file": "${file}" into "locator"`,
      '2: a locator names its file with "file": took "file_path" as "file"',
    ]);
    // An op that takes a file keeps it where it is; a locator that has a file is left alone.
    const kept = [
      { op: "replace_code", params: { file, pattern: "tmp", replacement: "t" } },
      { op: "delete_node", params: { locator: { ...locator, path: "other.py" } } },
    ];
    expect(normalizePlan(kept)).toEqual({ plan: kept, corrections: [] });
  });

  test("a locator's kind under 'type', a kind no language has, and a dotted Python name are corrected", () => {
    const fixed = normalizePlan([
      { op: "delete_node", params: { locator: { file: "shop.py", type: "method", name: "total" } } },
      {
        op: "delete_node",
        params: {
          locator: { file: "shop.py", kind: "def", name: "total", parent: { kind: "class_definition", name: "Cart" } },
        },
      },
      { op: "delete_node", params: { locator: { file: "shop.py", kind: "method", name: "shop.Cart.total" } } },
    ]);
    expect(fixed.plan).toEqual([
      { op: "delete_node", params: { locator: { file: "shop.py", kind: "method", name: "total" } } },
      {
        op: "delete_node",
        params: {
          locator: { file: "shop.py", kind: "function", name: "total", parent: { kind: "class", name: "Cart" } },
        },
      },
      {
        op: "delete_node",
        params: { locator: { file: "shop.py", kind: "method", name: "total", parent: { name: "Cart" } } },
      },
    ]);
    expect(fixed.corrections.map((c) => `${c.step}: ${c.message}`)).toEqual([
      '0: a locator names its node\'s kind with "kind": took "type": "method" as "kind"',
      '1: "class_definition" is not a locator kind: took it as "class"',
      '1: "def" is not a locator kind: took it as "function"',
      '2: a locator\'s name is one name: took "shop.Cart.total" as "total" inside "Cart" (its "parent")',
    ]);
    // The params themselves are not a locator (add_parameter's name and type), nor is an S-expression locator's type.
    const kept = [
      {
        template: "add_parameter",
        params: { target: { file: "shop.py", kind: "function", name: "total" }, name: "tax", type: "float" },
      },
      { op: "delete_node", params: { locator: { type: "sexp", file: "shop.py", query: "(call) @c", capture: "c" } } },
      { op: "delete_node", params: { locator: { file: "app.js", kind: "method", name: "Cart.total" } } },
      { op: "delete_node", params: { locator: { file: "shop.py", kind: "import", name: "os.path" } } },
      { op: "delete_node", params: { locator: { file: "shop.py", kind: "call", name: "os.path.join" } } },
    ];
    expect(normalizePlan(kept)).toEqual({ plan: kept, corrections: [] });
  });

  test("a plan without mistakes comes back equal, with no corrections", () => {
    const steps = [{ op: "delete_node", params: { locator } }];
    expect(normalizePlan(steps, { root: "/srv/repo" })).toEqual({ plan: steps, corrections: [] });
  });
});

describe("the run agrees with the corrections", () => {
  test("{template: replace_node} runs as the operator and its output says so", () => {
    // parsePlan corrects the step before any run; a step built in code reaches the handlers as written.
    const session = new PlanSession(new Map([["app/cart.py", CART]]), { handlers: formalHandlers });
    const result = session.run({
      template: "replace_node",
      params: { locator, replacement: "def total(items):\n    return 0" },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    session.commit();
    expect(session.text("app/cart.py")).toContain("def total(items):\n    return 0\n");
    session.dispose();
    expect(result).toMatchObject({ output: { corrected: expect.stringContaining('{"op": "replace_node"') } });
    expect(validateStep({ template: "replace_node", params: { locator, replacement: "x = 1" } })).toEqual([]);
  });

  test("an unknown template that is a synonym of an operator names the operator and how to write it", () => {
    const issues = validateStep({ template: "insert_after", params: {} });
    expect(issues[0]!.message).toContain(
      'did you mean the operator insert_after_node? write {"op": "insert_after_node"',
    );
  });

  test("rename_identifier's scope without a file is in the step's own file, for validation and for the run", () => {
    const step = {
      op: "rename_identifier",
      params: { file: "app/cart.py", name: "tmp", new_name: "subtotal", scope: { kind: "function", name: "total" } },
    };
    expect(validateStep(step)).toEqual([]);
    const edits = stepEdits(step, { "app/cart.py": CART });
    expect(edits.get("app/cart.py")).toHaveLength(2);
  });
});

describe("the names models give the file operations", () => {
  test("are suggested as the operator they mean", async () => {
    const { suggestName } = await import("./execute.js");
    const { CATALOG } = await import("./catalog.js");
    const names = CATALOG.map((e) => e.name);
    expect(
      ["new_file", "write_file", "rm", "remove_file", "mv", "move_file", "rename_everywhere"].map((n) =>
        suggestName(n, names),
      ),
    ).toEqual([
      "create_file",
      "create_file",
      "delete_file",
      "delete_file",
      "rename_file",
      "rename_file",
      "rename_across_files",
    ]);
  });
});
