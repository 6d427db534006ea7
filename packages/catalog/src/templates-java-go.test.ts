/**
 * The modifying templates and guard_clause on Java and Go: each result is the exact text expected,
 * javac's parser accepts every Java result, and gofmt leaves every Go result as it is (it parses,
 * and is laid out as gofmt lays it out).
 */
import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { gofmt, goParse, javacParse } from "@graphplan/testkit";
import { executeStep, validateStep } from "./execute.js";

beforeAll(() => loadGrammars(["java", "go"]));

const JAVA = `package shop;

import java.util.List;

public class Cart {
    private final List<Integer> prices;

    public Cart(List<Integer> prices) {
        super();
        this.prices = prices;
    }

    public int total(int discount) {
        int sum = 0;
        for (int p : prices) {
            sum += p;
        }
        if (sum > 100) {
            sum -= discount;
        }
        return sum * 2;
    }

    public boolean isEmpty() {
        return prices.size() == 0;
    }

    void tag(String first, String... rest) {}
}
`;

const GO = `package shop

type Cart struct {
	prices []int
}

func (c *Cart) Total(discount int) int {
	sum := 0
	for _, p := range c.prices {
		sum += p
	}
	if sum > 100 {
		sum -= discount
	}
	return sum * 2
}

func Parse(text string) (int, error) {
	return len(text), nil
}

func Scale(x, y int, unit string) int {
	return x * y
}
`;

const method = (name: string) => ({ kind: "method", name, file: "Cart.java" });
const fn = (name: string, kind = "function") => ({ kind, name, file: "cart.go" });

const run = (file: string, source: string, step: Record<string, unknown>): string => {
  expect(validateStep(step)).toEqual([]);
  return executeStep(step as never, { [file]: source }).files.get(file)!;
};

describe("Java", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "guard_clause first in a method",
      { template: "guard_clause", params: { target: method("total"), condition: "prices == null", body: "return 0;" } },
      "    public int total(int discount) {\n        int sum = 0;",
      "    public int total(int discount) {\n        if (prices == null) {\n            return 0;\n        }\n        int sum = 0;",
    ],
    [
      "guard_clause in a constructor goes after super()",
      {
        template: "guard_clause",
        params: {
          target: { kind: "constructor", name: "Cart", file: "Cart.java" },
          condition: "prices == null",
          body: 'throw new IllegalArgumentException("prices");',
        },
      },
      "        super();\n        this.prices = prices;",
      '        super();\n        if (prices == null) {\n            throw new IllegalArgumentException("prices");\n        }\n        this.prices = prices;',
    ],
    [
      "modify_condition of an if",
      {
        template: "modify_condition",
        params: {
          target: { kind: "if", file: "Cart.java", parent: method("total") },
          condition: "sum > 100 && discount > 0",
        },
      },
      "        if (sum > 100) {",
      "        if (sum > 100 && discount > 0) {",
    ],
    [
      "change_return_value of a method with one return",
      { template: "change_return_value", params: { target: method("isEmpty"), value: "prices.isEmpty()" } },
      "        return prices.size() == 0;",
      "        return prices.isEmpty();",
    ],
    [
      "replace_expression parenthesizes where grouping needs it",
      {
        template: "replace_expression",
        params: {
          target: {
            type: "sexp",
            file: "Cart.java",
            query: '((identifier) @s (#eq? @s "sum"))',
            capture: "s",
            index: 4,
          },
          expression: "sum - discount",
        },
      },
      "        return sum * 2;",
      "        return (sum - discount) * 2;",
    ],
    [
      "replace_function_body keeps the signature",
      {
        template: "replace_function_body",
        params: {
          target: method("isEmpty"),
          body: "if (prices == null) {\n    return true;\n}\nreturn prices.isEmpty();",
        },
      },
      "    public boolean isEmpty() {\n        return prices.size() == 0;\n    }",
      "    public boolean isEmpty() {\n        if (prices == null) {\n            return true;\n        }\n        return prices.isEmpty();\n    }",
    ],
    [
      "add_conditional_branch: else if, then else",
      {
        template: "add_conditional_branch",
        params: {
          target: { kind: "if", file: "Cart.java", parent: method("total") },
          condition: "sum > 50",
          body: "sum -= discount / 2;",
        },
      },
      "            sum -= discount;\n        }\n",
      "            sum -= discount;\n        } else if (sum > 50) {\n            sum -= discount / 2;\n        }\n",
    ],
    [
      "add_parameter with its type, after another",
      {
        template: "add_parameter",
        params: { target: method("total"), name: "rate", type: "double", after: "discount" },
      },
      "    public int total(int discount) {",
      "    public int total(int discount, double rate) {",
    ],
    [
      "add_method at the end of the class",
      {
        template: "add_method",
        params: {
          target: { kind: "class", name: "Cart", file: "Cart.java" },
          code: '@Override\npublic String toString() {\n    return "Cart" + prices;\n}',
        },
      },
      "    void tag(String first, String... rest) {}\n}\n",
      '    void tag(String first, String... rest) {}\n\n    @Override\n    public String toString() {\n        return "Cart" + prices;\n    }\n}\n',
    ],
    [
      "add_method right after a named member",
      {
        template: "add_method",
        params: {
          target: { kind: "class", name: "Cart", file: "Cart.java" },
          code: "public int count() {\n    return prices.size();\n}",
          after: "total",
        },
      },
      "        return sum * 2;\n    }\n\n    public boolean isEmpty() {",
      "        return sum * 2;\n    }\n\n    public int count() {\n        return prices.size();\n    }\n\n    public boolean isEmpty() {",
    ],
    [
      "add_class_attribute: a field after the fields",
      {
        template: "add_class_attribute",
        params: {
          target: { kind: "class", name: "Cart", file: "Cart.java" },
          name: "limit",
          type: "int",
          value: "100",
        },
      },
      "    private final List<Integer> prices;\n",
      "    private final List<Integer> prices;\n    int limit = 100;\n",
    ],
    [
      "wrap_try_except of one statement, with the exception's type and name",
      {
        template: "wrap_try_except",
        params: {
          target: { kind: "statement", file: "Cart.java", parent: method("isEmpty"), index: 0 },
          exception: "NullPointerException",
          alias: "npe",
          handler: "return true;",
        },
      },
      "    public boolean isEmpty() {\n        return prices.size() == 0;\n    }",
      "    public boolean isEmpty() {\n        try {\n            return prices.size() == 0;\n        } catch (NullPointerException npe) {\n            return true;\n        }\n    }",
    ],
    [
      "wrap_try_except of a constructor's body leaves super() first",
      {
        template: "wrap_try_except",
        params: {
          target: { kind: "constructor", name: "Cart", file: "Cart.java" },
          handler: "throw new IllegalStateException(e);",
          finally_body: "log();",
        },
      },
      "        super();\n        this.prices = prices;\n",
      "        super();\n        try {\n            this.prices = prices;\n        } catch (Exception e) {\n            throw new IllegalStateException(e);\n        } finally {\n            log();\n        }\n",
    ],
    [
      "add_decorator: an annotation above a method's modifiers",
      { template: "add_decorator", params: { target: method("isEmpty"), decorator: "Deprecated" } },
      "    public boolean isEmpty() {",
      "    @Deprecated\n    public boolean isEmpty() {",
    ],
    [
      "add_decorator innermost: after the annotations, before the modifiers",
      {
        template: "add_decorator",
        params: {
          target: { kind: "class", name: "Cart", file: "Cart.java" },
          decorator: 'SuppressWarnings("unchecked")',
          position: "innermost",
        },
      },
      "public class Cart {",
      '@SuppressWarnings("unchecked")\npublic class Cart {',
    ],
    [
      "add_decorator on a method without modifiers",
      { template: "add_decorator", params: { target: method("tag"), decorator: "SafeVarargs" } },
      "    void tag(String first, String... rest) {}",
      "    @SafeVarargs\n    void tag(String first, String... rest) {}",
    ],
    [
      "extract_variable: a local var before the statement",
      {
        template: "extract_variable",
        params: {
          target: {
            type: "sexp",
            file: "Cart.java",
            query: "(return_statement (binary_expression) @b)",
            capture: "b",
            index: 0,
          },
          name: "doubled",
        },
      },
      "        return sum * 2;",
      "        var doubled = sum * 2;\n        return doubled;",
    ],
    [
      "add_parameter before a varargs parameter",
      { template: "add_parameter", params: { target: method("tag"), name: "sep", type: "String" } },
      "    void tag(String first, String... rest) {}",
      "    void tag(String first, String sep, String... rest) {}",
    ],
  ];
  test.each(cases)("%s", (_name, step, before, after) => {
    expect(JAVA).toContain(before);
    const out = run("Cart.java", JAVA, step);
    expect(out).toBe(JAVA.replace(before, after));
    expect(javacParse([out])).toEqual([null]);
  });
});

test("Java add_decorator innermost goes between the annotations and the modifiers; outermost above them", () => {
  const source = JAVA.replace("    public boolean isEmpty() {", "    @Deprecated\n    public boolean isEmpty() {");
  const step = (position: string) => ({
    template: "add_decorator",
    params: { target: method("isEmpty"), decorator: 'SuppressWarnings("x")', position },
  });
  const inner = run("Cart.java", source, step("innermost"));
  expect(inner).toContain('    @Deprecated\n    @SuppressWarnings("x")\n    public boolean isEmpty() {');
  const outer = run("Cart.java", source, step("outermost"));
  expect(outer).toContain('    @SuppressWarnings("x")\n    @Deprecated\n    public boolean isEmpty() {');
  expect(javacParse([inner, outer])).toEqual([null, null]);
});

test("Java add_import_and_use: the import after the imports (after the package when there is none), the expression replaced", () => {
  const step = (file: string) => ({
    template: "add_import_and_use",
    params: {
      target: { type: "sexp", file, query: "(binary_expression) @b", capture: "b", index: -1 },
      import: "import java.util.Objects;",
      expression: "Objects.requireNonNull(prices).isEmpty()",
    },
  });
  const out = run("Cart.java", JAVA, step("Cart.java"));
  expect(out).toBe(
    JAVA.replace("import java.util.List;\n", "import java.util.List;\nimport java.util.Objects;\n").replace(
      "return prices.size() == 0;",
      "return Objects.requireNonNull(prices).isEmpty();",
    ),
  );
  const bare =
    "package shop;\n\nclass Box {\n    boolean empty(java.util.List<Integer> prices) {\n        return prices.size() == 0;\n    }\n}\n";
  const first = run("Box.java", bare, step("Box.java"));
  expect(first).toBe(
    "package shop;\n\nimport java.util.Objects;\n\nclass Box {\n    boolean empty(java.util.List<Integer> prices) {\n        return Objects.requireNonNull(prices).isEmpty();\n    }\n}\n",
  );
  expect(javacParse([out, first])).toEqual([null, null]);
  // Already imported: only the expression changes.
  const again = {
    ...step("Cart.java").params,
    target: {
      type: "sexp",
      file: "Cart.java",
      query: '((method_invocation name: (identifier) @n) @m (#eq? @n "isEmpty"))',
      capture: "m",
    },
    expression: "Objects.isNull(prices)",
  };
  expect(run("Cart.java", out, { template: "add_import_and_use", params: again })).toBe(
    out.replace("Objects.requireNonNull(prices).isEmpty()", "Objects.isNull(prices)"),
  );
});

describe("Go", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "guard_clause first in a method (no parentheses, tabs)",
      { template: "guard_clause", params: { target: fn("Total", "method"), condition: "c == nil", body: "return 0" } },
      "func (c *Cart) Total(discount int) int {\n\tsum := 0",
      "func (c *Cart) Total(discount int) int {\n\tif c == nil {\n\t\treturn 0\n\t}\n\tsum := 0",
    ],
    [
      "modify_condition of an if",
      {
        template: "modify_condition",
        params: {
          target: { kind: "if", file: "cart.go", parent: fn("Total", "method") },
          condition: "sum > 100 && discount > 0",
        },
      },
      "\tif sum > 100 {",
      "\tif sum > 100 && discount > 0 {",
    ],
    [
      "change_return_value with several values",
      { template: "change_return_value", params: { target: fn("Parse"), value: 'len(text), fmt.Errorf("empty")' } },
      "\treturn len(text), nil",
      '\treturn len(text), fmt.Errorf("empty")',
    ],
    [
      "replace_expression parenthesizes where grouping needs it",
      {
        template: "replace_expression",
        params: {
          target: { type: "sexp", file: "cart.go", query: '((identifier) @s (#eq? @s "sum"))', capture: "s", index: 4 },
          expression: "sum - discount",
        },
      },
      "\treturn sum * 2",
      "\treturn (sum - discount) * 2",
    ],
    [
      "replace_function_body keeps the signature",
      {
        template: "replace_function_body",
        params: { target: fn("Parse"), body: 'if text == "" {\n\treturn 0, errEmpty\n}\nreturn len(text), nil' },
      },
      "func Parse(text string) (int, error) {\n\treturn len(text), nil\n}",
      'func Parse(text string) (int, error) {\n\tif text == "" {\n\t\treturn 0, errEmpty\n\t}\n\treturn len(text), nil\n}',
    ],
    [
      "extract_variable: a short variable declaration before the statement",
      {
        template: "extract_variable",
        params: {
          target: {
            type: "sexp",
            file: "cart.go",
            query: "(return_statement (expression_list (binary_expression) @b))",
            capture: "b",
            index: 0,
          },
          name: "doubled",
        },
      },
      "\treturn sum * 2",
      "\tdoubled := sum * 2\n\treturn doubled",
    ],
    [
      "add_conditional_branch: else if without parentheses",
      {
        template: "add_conditional_branch",
        params: {
          target: { kind: "if", file: "cart.go", parent: fn("Total", "method") },
          condition: "sum > 50",
          body: "sum -= discount / 2",
        },
      },
      "\t\tsum -= discount\n\t}\n",
      "\t\tsum -= discount\n\t} else if sum > 50 {\n\t\tsum -= discount / 2\n\t}\n",
    ],
    [
      "add_parameter: name then type, after a grouped declaration",
      { template: "add_parameter", params: { target: fn("Scale"), name: "round", type: "bool", after: "y" } },
      "func Scale(x, y int, unit string) int {",
      "func Scale(x, y int, round bool, unit string) int {",
    ],
  ];
  test.each(cases)("%s", (_name, step, before, after) => {
    expect(GO).toContain(before);
    const out = run("cart.go", GO, step);
    expect(out).toBe(GO.replace(before, after));
    expect(goParse([out])).toEqual([null]);
    expect(gofmt(out)).toBe(out);
  });
});

describe("Go add_import_and_use: the import where gofmt sorts it", () => {
  const GROUPED =
    'package shop\n\nimport (\n\t"fmt"\n\t"os"\n\n\t"github.com/x/y"\n)\n\nfunc Name(text string) string {\n\treturn fmt.Sprint(text, os.Args, y.Z)\n}\n';
  const step = (file: string, imp: string, expression: string) => ({
    template: "add_import_and_use",
    params: {
      target: { type: "sexp", file, query: "(argument_list (identifier) @a)", capture: "a", index: 0 },
      import: imp,
      expression,
    },
  });
  test.each([
    ["a standard package, after the ones before it", 'import "strings"', '\t"os"\n\t"strings"\n\n'],
    ["a standard package, first", 'import "bytes"', '(\n\t"bytes"\n\t"fmt"\n'],
    [
      "another module's package, in the second run",
      'import "github.com/a/b"',
      '\n\n\t"github.com/a/b"\n\t"github.com/x/y"\n)',
    ],
    ["a named import", 'import str "strings"', '\t"os"\n\tstr "strings"\n\n'],
  ])("%s", (_name, imp, expected) => {
    const out = run("name.go", GROUPED, step("name.go", imp, "strings.TrimSpace(text)"));
    expect(out).toContain(expected);
    expect(out).toContain("fmt.Sprint(strings.TrimSpace(text), os.Args");
    expect(gofmt(out)).toBe(out);
  });

  test("a file without imports gets one after the package clause; a present one is not added again", () => {
    const out = run("cart.go", GO, step("cart.go", 'import "strings"', 'strings.Repeat("x", 2)'));
    expect(out.startsWith('package shop\n\nimport "strings"\n\ntype Cart struct {')).toBe(true);
    expect(gofmt(out)).toBe(out);
    const again = run("name.go", GROUPED, step("name.go", 'import "fmt"', "fmt.Sprint(text)"));
    expect(again.match(/"fmt"/g)).toHaveLength(1);
  });
});

describe("Java wrap_context_manager: a try-with-resources", () => {
  const total = { kind: "statement", file: "Cart.java", parent: method("total"), index: 1 };

  test("a named resource around the statement, and a variable as the resource", () => {
    const out = run("Cart.java", JAVA, {
      template: "wrap_context_manager",
      params: { target: total, context: 'Metrics.timer("total")', alias: "timer" },
    });
    expect(out).toContain(
      '        int sum = 0;\n        try (var timer = Metrics.timer("total")) {\n            for (int p : prices) {\n                sum += p;\n            }\n        }\n        if (sum > 100) {',
    );
    const bare = run("Cart.java", JAVA, {
      template: "wrap_context_manager",
      params: { target: total, context: "lock" },
    });
    expect(bare).toContain("        try (lock) {\n            for (int p : prices) {");
    expect(javacParse([out, bare])).toEqual([null, null]);
  });

  test.each([
    [
      "an expression without a name",
      { target: total, context: "Metrics.timer()" },
      /a Java resource that is not a variable needs a name: give "alias"/,
    ],
    [
      "a name the method uses",
      { target: total, context: "Metrics.timer()", alias: "sum" },
      /sum is already used in this method/,
    ],
    [
      "wrapping a declaration used after it",
      { target: { ...total, index: 0 }, context: "lock" },
      /sum is declared inside the wrapped code and used after it/,
    ],
  ] as [string, Record<string, unknown>, RegExp][])("refuses %s", (_name, params, message) => {
    expect(() => executeStep({ template: "wrap_context_manager", params } as never, { "Cart.java": JAVA })).toThrow(
      message,
    );
  });
});

describe("Go add_method and add_class_attribute: a type's methods and a struct's fields", () => {
  const cart = { kind: "struct", name: "Cart", file: "cart.go" };

  test("a method goes after the type's last method in the file, or after the one named", () => {
    const code = "func (c *Cart) Reset() {\n\tc.prices = nil\n}";
    const out = run("cart.go", GO, { template: "add_method", params: { target: cart, code } });
    expect(out).toContain("\treturn sum * 2\n}\n\nfunc (c *Cart) Reset() {\n\tc.prices = nil\n}\n\nfunc Parse(");
    expect(goParse([out])).toEqual([null]);
    expect(gofmt(out)).toBe(out);
    const first = run(
      "cart.go",
      GO.replace(
        "func (c *Cart) Total",
        "func (c *Cart) Count() int {\n\treturn len(c.prices)\n}\n\nfunc (c *Cart) Total",
      ),
      { template: "add_method", params: { target: cart, code, after: "Count" } },
    );
    expect(first).toContain(
      "\treturn len(c.prices)\n}\n\nfunc (c *Cart) Reset() {\n\tc.prices = nil\n}\n\nfunc (c *Cart) Total(",
    );
    expect(gofmt(first)).toBe(first);
  });

  test("a type with no method yet gets it after its declaration", () => {
    const out = run("cart.go", GO, {
      template: "add_method",
      params: {
        target: { kind: "type", name: "Cart", file: "cart.go" },
        code: "func (c Cart) Empty() bool {\n\treturn len(c.prices) == 0\n}",
      },
    });
    expect(gofmt(out)).toBe(out);
    const bare = "package shop\n\ntype ID int\n\nfunc Parse() {}\n";
    const id = run("id.go", bare, {
      template: "add_method",
      params: {
        target: { kind: "type", name: "ID", file: "id.go" },
        code: 'func (i ID) String() string {\n\treturn "id"\n}',
      },
    });
    expect(id).toBe(
      'package shop\n\ntype ID int\n\nfunc (i ID) String() string {\n\treturn "id"\n}\n\nfunc Parse() {}\n',
    );
    expect(gofmt(id)).toBe(id);
  });

  test("a field joins the last run of fields, realigned as gofmt aligns it (whitespace edits only)", () => {
    // Found on encoding/csv's Writer: trailing comments and tags come after the types; only the names column moves.
    const commented = GO.replace(
      "\tprices []int\n",
      "\tComma   rune // Field delimiter\n\tUseCRLF bool // True to use \\r\\n\n\tw       []int\n",
    );
    const csv = run("cart.go", commented, {
      template: "add_class_attribute",
      params: { target: cart, name: "writtenBytes", type: "int" },
    });
    expect(csv).toContain(
      "\tComma        rune // Field delimiter\n\tUseCRLF      bool // True to use \\r\\n\n\tw            []int\n\twrittenBytes int\n}",
    );
    expect(gofmt(csv)).toBe(csv);
    const embedded = run("cart.go", GO.replace("\tprices []int\n", "\tprices []int\n\tio.Reader\n"), {
      template: "add_class_attribute",
      params: { target: cart, name: "limit", type: "int" },
    });
    expect(embedded).toContain("\tio.Reader\n\tlimit int\n}");
    expect(gofmt(embedded)).toBe(embedded);
    const out = run("cart.go", GO, {
      template: "add_class_attribute",
      params: { target: cart, name: "discountRate", type: "float64" },
    });
    expect(out).toContain("type Cart struct {\n\tprices       []int\n\tdiscountRate float64\n}");
    expect(gofmt(out)).toBe(out);
    const tagged = GO.replace("\tprices []int\n", '\tprices []int `json:"prices"`\n');
    const afterTag = run("cart.go", tagged, {
      template: "add_class_attribute",
      params: { target: cart, name: "limit", type: "int" },
    });
    expect(afterTag).toContain('\tprices []int `json:"prices"`\n\tlimit  int\n}');
    expect(gofmt(afterTag)).toBe(afterTag);
    const empty = run("e.go", "package shop\n\ntype Empty struct{}\n", {
      template: "add_class_attribute",
      params: { target: { kind: "struct", name: "Empty", file: "e.go" }, name: "n", type: "int" },
    });
    expect(empty).toBe("package shop\n\ntype Empty struct {\n\tn int\n}\n");
    expect(gofmt(empty)).toBe(empty);
  });

  test.each([
    [
      "a method with another receiver",
      "add_method",
      { target: cart, code: "func (o *Order) Reset() {}" },
      /the method's receiver is Order, not Cart/,
    ],
    [
      "a function without a receiver",
      "add_method",
      { target: cart, code: "func Reset() {}" },
      /a Go method needs a receiver: func \(x \*Cart\) Reset/,
    ],
    [
      "a method named like a method of the type",
      "add_method",
      { target: cart, code: "func (c *Cart) Total(d int) int {\n\treturn 0\n}" },
      /Cart already has a member named Total \(line 7\)/,
    ],
    [
      "a method named like a field",
      "add_method",
      { target: cart, code: "func (c *Cart) prices() []int {\n\treturn nil\n}" },
      /Cart already has a member named prices \(line 4\)/,
    ],
    [
      "a field with a value",
      "add_class_attribute",
      { target: cart, name: "limit", type: "int", value: "3" },
      /a Go struct field has no value/,
    ],
    [
      "a field without a type",
      "add_class_attribute",
      { target: cart, name: "limit" },
      /a Go struct field needs a type/,
    ],
    [
      "a field named like a method",
      "add_class_attribute",
      { target: cart, name: "Total", type: "int" },
      /Cart already has a member named Total/,
    ],
  ] as [string, string, Record<string, unknown>, RegExp][])("refuses %s", (_name, template, params, message) => {
    expect(() => executeStep({ template, params } as never, { "cart.go": GO })).toThrow(message);
  });
});

describe("the templates refuse what they cannot do in Java and Go", () => {
  test("statements that do not parse are refused before anything runs, with the place of the error", () => {
    const issues = validateStep({
      template: "guard_clause",
      params: { target: fn("Parse"), condition: 'text == ""', body: "return 0, errEmpty)" },
    });
    expect(issues.map((i) => i.path)).toEqual(["params.body"]);
    expect(issues[0]!.message).toMatch(/does not parse as/);
  });

  test.each([
    ["a Java parameter without a type", "Cart.java", JAVA, { target: method("total"), name: "rate" }, /needs a type/],
    [
      "a Java parameter with a default",
      "Cart.java",
      JAVA,
      { target: method("total"), name: "rate", type: "int", default: "0" },
      /no default parameter values/,
    ],
    [
      "a Go parameter inside a group that shares a type",
      "cart.go",
      GO,
      { target: fn("Scale"), name: "z", type: "int", after: "x" },
      /x, y share one type \(x, y int\): add the parameter after y/,
    ],
    [
      "a Java method whose name the class has",
      "Cart.java",
      JAVA,
      {
        target: { kind: "class", name: "Cart", file: "Cart.java" },
        code: "public boolean isEmpty() {\n    return true;\n}",
      },
      /already has a member named isEmpty/,
      "add_method",
    ],
    [
      "a Java field whose name the class has",
      "Cart.java",
      JAVA,
      { target: { kind: "class", name: "Cart", file: "Cart.java" }, name: "prices", type: "int", value: "0" },
      /already has a member named prices/,
      "add_class_attribute",
    ],
    [
      "wrapping a Java local variable that is used after the wrap",
      "Cart.java",
      JAVA,
      { target: { kind: "statement", file: "Cart.java", parent: method("total"), index: 0 }, handler: "return 0;" },
      /sum is declared inside the wrapped code and used after it/,
      "wrap_try_except",
    ],
    [
      "an annotation that is already there",
      "Cart.java",
      JAVA.replace("    public boolean isEmpty() {", "    @Deprecated public boolean isEmpty() {"),
      { target: method("isEmpty"), decorator: "@Deprecated" },
      /@Deprecated is already there/,
      "add_decorator",
    ],
    [
      "extracting into a name the method uses",
      "Cart.java",
      JAVA,
      {
        target: {
          type: "sexp",
          file: "Cart.java",
          query: "(return_statement (binary_expression) @b)",
          capture: "b",
          index: 0,
        },
        name: "discount",
      },
      /discount is already used in this function/,
      "extract_variable",
    ],
    [
      "extracting the right operand of &&",
      "Cart.java",
      JAVA.replace("if (sum > 100) {", "if (sum > 0 && sum / 2 > 50) {"),
      {
        target: {
          type: "sexp",
          file: "Cart.java",
          query: '(binary_expression operator: "&&" right: (_) @r)',
          capture: "r",
        },
        name: "half",
      },
      /right operand of a short-circuit operator/,
      "extract_variable",
    ],
    [
      "extracting into a Go type's name",
      "cart.go",
      GO,
      {
        target: {
          type: "sexp",
          file: "cart.go",
          query: "(return_statement (expression_list (binary_expression) @b))",
          capture: "b",
          index: 0,
        },
        name: "Cart",
      },
      /Cart is already used in this function/,
      "extract_variable",
    ],
    [
      "extracting a Go loop condition",
      "cart.go",
      GO.replace("for _, p := range c.prices {", "for i := 0; i < len(c.prices); i++ {\n\t\tp := c.prices[i]"),
      {
        target: { type: "sexp", file: "cart.go", query: "(for_clause condition: (_) @c)", capture: "c" },
        name: "more",
      },
      /every iteration of the loop/,
      "extract_variable",
    ],
    [
      "a Java field without a type",
      "Cart.java",
      JAVA,
      { target: { kind: "class", name: "Cart", file: "Cart.java" }, name: "limit", value: "0" },
      /needs a type/,
      "add_class_attribute",
    ],
    [
      "a Go parameter that exists in a group",
      "cart.go",
      GO,
      { target: fn("Scale"), name: "x", type: "int" },
      /already has a parameter named x/,
    ],
  ] as [string, string, string, Record<string, unknown>, RegExp, string?][])(
    "refuses %s",
    (_name, file, source, params, message, template = "add_parameter") => {
      expect(() => executeStep({ template, params } as never, { [file]: source })).toThrow(message);
    },
  );

  test("an else is not added twice", () => {
    const once = run("cart.go", GO, {
      template: "add_conditional_branch",
      params: { target: { kind: "if", file: "cart.go", parent: fn("Total", "method") }, body: "sum = 0" },
    });
    expect(once).toContain("\t} else {\n\t\tsum = 0\n\t}\n");
    expect(gofmt(once)).toBe(once);
    expect(() =>
      executeStep(
        {
          template: "add_conditional_branch",
          params: { target: { kind: "if", file: "cart.go", parent: fn("Total", "method") }, body: "sum = 1" },
        } as never,
        { "cart.go": once },
      ),
    ).toThrow(/already has an else/);
  });

  test("templates written for Python and JavaScript only still say so for Go", () => {
    expect(() =>
      executeStep(
        {
          template: "wrap_try_except",
          params: { target: fn("Parse"), exception: "Exception", handler: "return 0, err" },
        } as never,
        { "cart.go": GO },
      ),
    ).toThrow(/cart\.go is go; this operator supports python, javascript, typescript, tsx, java$/m);
  });
});
