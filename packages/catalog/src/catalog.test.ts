import { describe, expect, test } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { OPERATORS } from "@graphplan/primitives";
import { CATALOG, catalogPrompt, compactCatalogPrompt, planJsonSchema } from "./index.js";
import { planSchema } from "./catalog.js";
import { TEMPLATES } from "./templates/index.js";
import { USE_CASES } from "./operator.js";

const DESIGN_GROUPS: Record<string, string[]> = {
  "Adding Code": [
    "guard_clause",
    "add_import_and_use",
    "add_method",
    "add_parameter",
    "add_class_attribute",
    "add_decorator",
    "add_conditional_branch",
  ],
  "Modifying Code": ["replace_expression", "modify_condition", "change_return_value", "replace_function_body"],
  "Wrapping Code": ["wrap_try_except", "wrap_context_manager"],
  Restructuring: ["extract_variable", "inline_variable"],
  "AST Surgery": [
    "rename_identifier",
    "rename_across_files",
    "copy_node",
    "move_node",
    "swap_nodes",
    "delete_node",
    "reorder_children",
  ],
};

describe("the one catalog", () => {
  test("every tier is in it once: 15 templates, 7 surgery ops, the fragment step, the other primitives, composed and legacy ops", () => {
    expect(CATALOG.filter((e) => e.tier === 2).map((e) => e.name)).toHaveLength(15);
    for (const [group, names] of Object.entries(DESIGN_GROUPS)) {
      expect(
        CATALOG.filter((e) => e.useCase === group)
          .map((e) => e.name)
          .sort(),
        group,
      ).toEqual([...names].sort());
    }
    expect(CATALOG.filter((e) => e.tier === 3).map((e) => e.name)).toEqual(["fragment"]);
    const tier0 = CATALOG.filter((e) => e.tier === 0).map((e) => e.name);
    expect(tier0.sort()).toEqual(
      OPERATORS.map((o) => o.name)
        .filter((n) => n !== "delete_node")
        .sort(),
    );
    const keys = CATALOG.map((e) => `${e.step}:${e.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("each template describes its typed params, node kinds and languages", () => {
    for (const t of TEMPLATES) {
      expect(t.description.length, t.name).toBeGreaterThan(30);
      expect(t.input.length, t.name).toBeGreaterThan(0);
      expect(t.output.length, t.name).toBeGreaterThan(0);
      expect(t.languages, t.name).toContain("python");
    }
  });
});

describe("planJsonSchema", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(planJsonSchema());
  const target = { kind: "function", name: "f", file: "a.py" };

  test("accepts a mixed plan and every catalog example", () => {
    const plan = [
      { template: "guard_clause", params: { target, condition: "x is None", body: "return None" } },
      { op: "rename_identifier", params: { file: "a.py", name: "x", new_name: "y" } },
      {
        fragment: { kind: "if_statement", properties: { condition: "y" }, children: [{ kind: "pass_statement" }] },
        action: "insert_after",
        locator: target,
      },
      { op: "replace_node", params: { locator: target, replacement: "def f(): pass" } },
      { op: "replace_code", params: { file: "a.py", pattern: "a", replacement: "b" } },
    ];
    expect(validate(plan), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    for (const e of CATALOG.filter((c) => c.example)) {
      const step = e.step === "fragment" ? e.example : { [e.step]: e.name, params: e.example };
      expect(validate([step]), `${e.name}: ${JSON.stringify(validate.errors?.slice(0, 2))}`).toBe(true);
    }
  });

  test("rejects what the zod description rejects: missing params, unknown templates, bad fragments, unknown params", () => {
    expect(validate([{ template: "guard_clause", params: { target, body: "return" } }])).toBe(false);
    expect(validate([{ template: "guard_clouse", params: {} }])).toBe(false);
    expect(validate([{ fragment: { kind: "if", properties: {} }, locator: target }])).toBe(false);
    expect(
      validate([{ fragment: { kind: "return_statement", children: [{ kind: "pass_statement" }] }, locator: target }]),
    ).toBe(false);
    expect(validate([{ op: "swap_nodes", params: { first: target, second: target, third: target } }])).toBe(false);
    expect(validate([])).toBe(false);
  });

  test("custom operators are allowed in the define_operators form only", () => {
    const custom = { op: "mine", params: { file: "a.py" } };
    expect(
      validate({
        define_operators: [
          {
            define: "mine",
            params_schema: { file: "string" },
            steps: [{ primitive: "locate", params: { locator: target } }],
          },
        ],
        plan: [custom],
      }),
    ).toBe(true);
    expect(validate([custom])).toBe(false);
  });

  test("the zod plan schema agrees", () => {
    expect(planSchema().safeParse([{ template: "add_parameter", params: { target, name: "x" } }]).success).toBe(true);
    expect(planSchema().safeParse([{ template: "add_parameter", params: { target } }]).success).toBe(false);
  });
});

describe("catalogPrompt", () => {
  const prompt = catalogPrompt();

  test("groups by use case in the design's order, then primitives and legacy", () => {
    const headings = [...prompt.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([...USE_CASES]);
  });

  test("every operator appears under its group, with its params", () => {
    const sections = Object.fromEntries(
      prompt
        .split(/^## /m)
        .slice(1)
        .map((s) => [s.slice(0, s.indexOf("\n")), s]),
    );
    for (const [group, names] of Object.entries(DESIGN_GROUPS))
      for (const name of names) expect(sections[group], `${group}: ${name}`).toContain(`### ${name}`);
    expect(sections["Adding Code"]).toContain("  - condition (expression: condition): When the guard fires");
    expect(sections["Novel Code (fragments)"]).toContain(
      "if_statement (condition*:condition; children: statements, then elif_clause, else_clause)",
    );
    expect(sections["Primitives"]).toContain("- replace_node(locator, replacement):");
    expect(sections["Legacy (still supported)"]).toContain(
      "- replace_code(file, pattern, replacement, similarity_threshold?):",
    );
    expect(catalogPrompt({ legacy: false })).not.toContain("## Legacy");
  });
});

describe("compactCatalogPrompt", () => {
  const prompt = compactCatalogPrompt();

  test("has the same groups, one line per operator with every parameter, in a third of the full text", () => {
    expect([...prompt.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual([...USE_CASES]);
    const sections = Object.fromEntries(
      prompt
        .split(/^## /m)
        .slice(1)
        .map((s) => [s.slice(0, s.indexOf("\n")), s]),
    );
    for (const [group, names] of Object.entries(DESIGN_GROUPS))
      for (const name of names) expect(sections[group], `${group}: ${name}`).toMatch(new RegExp(`^- ${name}\\(`, "m"));
    expect(sections["Adding Code"]).toMatch(
      /^- guard_clause\(target: locator, condition: expression: condition, body: statements\) \[py,js,ts,java,go\]: Insert `if <condition>: <body>`[^\n]*\.$/m,
    );
    expect(sections["Primitives"]).toContain("- replace_node(locator: locator, replacement: string): ");
    expect(sections["Legacy (still supported)"]).toMatch(
      /^- replace_code\(file: string, pattern: string, replacement: string, similarity_threshold\?: number\): .* Prefer replace_node\.$/m,
    );
    expect(sections["Novel Code (fragments)"]).toContain("if_statement(condition*)");
    // A description is cut at its first sentence, never inside "e.g.".
    expect(prompt).toContain("between `before` and `after` code (e.g. try/except), indenting it.");
    expect(prompt.length).toBeLessThan(catalogPrompt().length / 2);
    expect(compactCatalogPrompt({ legacy: false })).not.toContain("## Legacy");
  });

  test("lists only what files of the given languages can use, and the steps of any file always", () => {
    const python = compactCatalogPrompt({ legacy: false, languages: ["python"] });
    const rust = compactCatalogPrompt({ legacy: false, languages: ["rust"] });
    const css = compactCatalogPrompt({ legacy: false, languages: ["css"] });
    expect(python).toMatch(/^- guard_clause\(/m);
    expect(python).toContain("## Novel Code (fragments)");
    // No template and no fragment applies to Rust: its prompt offers primitives, files, text and data steps.
    expect(rust).not.toMatch(/^- guard_clause\(/m);
    expect(rust).not.toContain("## Novel Code (fragments)");
    for (const section of ["Primitives", "Files (create, delete, rename)", "Text (any file: docs, changelogs, config)"])
      expect(rust).toContain(`## ${section}`);
    expect(rust).toMatch(/^- replace_node\(/m);
    // The shell/CSS/HTML locators only where such a file is planned.
    expect(python).not.toContain("Shell, CSS, HTML nodes");
    expect(css).toContain("Shell, CSS, HTML nodes");
    expect(rust.length).toBeLessThan(python.length);
  });

  test("leaves out the read-only operators and the primitive forms of templates of the same name", () => {
    expect(prompt).not.toMatch(/^- locate\(/m);
    expect(prompt).not.toMatch(/^- locate_region\(/m);
    expect(prompt.match(/^- add_method\(/gm)).toHaveLength(1);
    expect(prompt).toMatch(/^- add_method\(target: locator/m);
    // They are still operators a plan may use.
    expect(CATALOG.some((e) => e.name === "locate" && e.step === "op")).toBe(true);
  });
});
