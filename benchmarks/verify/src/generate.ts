/**
 * A synthetic Python module of an exact number of lines (classes with methods, functions, a
 * few rare identifiers) and a plan of mixed primitives over it, each step on its own target.
 */

const HEADER = (rare: number): string[] => {
  const lines = ["import os", "import sys", "", "", "class Base:", "    pass", "", ""];
  for (let k = 0; k < 7; k++) lines.push(`def helper_${k}(x, y):`, `    return (x, y, ${k})`, "", "");
  lines.push("def compute(items):", "    return [i * 2 for i in items]", "", "");
  for (let k = 0; k < rare; k++)
    lines.push(`RARE_${k} = ${k}`, "", "", `def use_rare_${k}():`, `    return RARE_${k} + RARE_${k}`, "", "");
  return lines;
};

const UNIT = (i: number): string[] => [
  `class C${i}(Base):`,
  `    """Doc ${i}."""`,
  "",
  `    def method_${i}(self, x, y=None):`,
  `        if x > ${i}:`,
  `            return helper_${i % 7}(x, y)`,
  "        total = sum(v * 2 for v in range(x))",
  "        return total",
  "",
  "",
  `def f_${i}(a, b):`,
  `    value = a + b * ${i}`,
  "    return value",
  "",
  "",
  `def g_${i}(items):`,
  "    result = compute(items)",
  "    return result",
  "",
  "",
  `def h_${i}():`,
  `    return ${i}`,
  "",
  "",
];

export interface Generated {
  readonly source: string;
  /** Number of class/function units (unit `i` defines C{i}, f_{i}, g_{i}, h_{i}). */
  readonly units: number;
  readonly rare: number;
}

/** A module of exactly `lines` lines (each ending in a newline). */
export function generateModule(lines: number, rare: number): Generated {
  const out = HEADER(rare);
  let units = 0;
  while (out.length + UNIT(units).length <= lines) out.push(...UNIT(units++));
  let pad = 0;
  while (out.length < lines) out.push(`PAD_${pad++} = ${pad}`);
  return { source: `${out.join("\n")}\n`, units, rare };
}

const OPS = [
  "replace_node",
  "insert_after_node",
  "add_method",
  "replace_all_matching",
  "wrap_node",
  "delete_node",
] as const;

/** `steps` steps cycling through six primitives and composed ops, spread over the module. */
export function generatePlan(file: string, module: Generated, steps: number): Record<string, unknown>[] {
  const plan: Record<string, unknown>[] = [];
  const perOp = Math.ceil(steps / OPS.length);
  const stride = Math.max(1, Math.floor(module.units / perOp));
  for (let s = 0; s < steps; s++) {
    const op = OPS[s % OPS.length]!;
    const round = Math.floor(s / OPS.length);
    const i = (round * stride) % module.units;
    switch (op) {
      case "replace_node":
        plan.push({
          op,
          params: {
            locator: { kind: "function", name: `f_${i}`, file },
            replacement: `def f_${i}(a, b):\n    value = a * b + ${i}\n    return value`,
          },
        });
        break;
      case "insert_after_node":
        plan.push({
          op,
          params: {
            locator: { kind: "function", name: `h_${i}`, file },
            code: `def h_${i}_extra():\n    return h_${i}() + 1`,
            separator: "\n\n\n",
          },
        });
        break;
      case "add_method":
        plan.push({
          op,
          params: {
            file,
            class_name: `C${i}`,
            method_code: `def describe_${i}(self):\n    return self.method_${i}(${i})`,
          },
        });
        break;
      case "replace_all_matching": {
        const k = round % module.rare;
        plan.push({
          op,
          params: {
            locator: { type: "sexp", file, query: `((identifier) @id (#eq? @id "RARE_${k}"))`, capture: "id" },
            replacement: `RENAMED_${k}`,
            filter: "not_in_string_or_comment",
          },
        });
        break;
      }
      case "wrap_node":
        plan.push({
          op,
          params: {
            locator: { kind: "statement", file, parent: { kind: "function", name: `g_${i}` }, name: "result" },
            before: "try:\n",
            after: "\nexcept ValueError:\n    result = []",
          },
        });
        break;
      case "delete_node":
        plan.push({
          op,
          params: { locator: { kind: "function", name: `h_${(i + Math.floor(stride / 2)) % module.units}`, file } },
        });
        break;
    }
  }
  return plan;
}
