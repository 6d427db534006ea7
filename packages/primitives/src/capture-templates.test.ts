/** replace_all_matching with an S-expression locator: `$name` in the replacement is what @name captured in each match. */
import { loadGrammars } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { runPlan } from "./index.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(async () => {
  await loadGrammars(["python", "javascript"]);
});

const PY = `import logging

log = logging.getLogger(__name__)


def run(items):
    log.warn("starting %d", len(items))
    for item in items:
        log.warn("item %s", item)
    log.info("done")
    return "$" + str(len(items))
`;

const apply = (file: string, source: string, params: Record<string, unknown>) => {
  const result = runPlan(planOf([{ op: "replace_all_matching", params }]), new Map([[file, source]]));
  if (!result.ok) throw result.error;
  return result.files.get(file)!;
};

describe("capture templates", () => {
  it("rewrites every call of one method, keeping each call's own arguments (#eq? on the method name)", () => {
    const out = apply("app.py", PY, {
      locator: {
        type: "sexp",
        file: "app.py",
        query:
          '(call function: (attribute object: (identifier) @obj attribute: (identifier) @m (#eq? @m "warn")) arguments: (argument_list) @args) @target',
      },
      replacement: "$obj.warning$args",
    });
    expect(out).toContain('    log.warning("starting %d", len(items))\n');
    expect(out).toContain('        log.warning("item %s", item)\n');
    expect(out).toContain('    log.info("done")\n');
    expect(out).not.toContain(".warn(");
  });

  it("picks the node by `capture`, filters with #match?, and keeps $$ and $words that are no capture", () => {
    const source = "const a = get('x');\nconst b = get('y');\nconst c = fetch('z');\n";
    const out = apply("a.js", source, {
      locator: {
        type: "sexp",
        file: "a.js",
        query:
          '(call_expression function: (identifier) @fn (#match? @fn "^get$") arguments: (arguments (string (string_fragment) @key))) @call',
        capture: "call",
      },
      replacement: "$store.read('$key', '$$1')",
    });
    expect(out).toBe("const a = $store.read('x', '$1');\nconst b = $store.read('y', '$1');\nconst c = fetch('z');\n");
  });

  it("takes ${name} for a capture name with a dot, and leaves a structured locator's replacement as written", () => {
    const dotted = apply("app.py", PY, {
      locator: {
        type: "sexp",
        file: "app.py",
        query:
          '(call function: (attribute attribute: (identifier) @method.name (#eq? @method.name "info")) arguments: (argument_list (string) @message)) @target',
      },
      replacement: "print(${message})  # was ${method.name}",
    });
    expect(dotted).toContain('    print("done")  # was info\n');
    const structured = apply("app.py", PY, {
      locator: { kind: "return", file: "app.py", parent: { kind: "function", name: "run" } },
      replacement: 'print("$$", "$obj")',
    });
    expect(structured).toContain('    print("$$", "$obj")\n');
  });
});
